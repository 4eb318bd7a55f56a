"""Renderers: terminal tables, Markdown, HTML and SVG charts."""
