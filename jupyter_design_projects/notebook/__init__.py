"""The notebook layer: parse the magic line, call the pipeline, render. Widgets live here."""
