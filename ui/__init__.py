"""The lab's Streamlit layer: one module per concern (ui.pages, ui.link, ui.vectors, ui.tables, ...); nothing here."""
