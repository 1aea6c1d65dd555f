"""The Tablero web application (FastAPI). It talks to games only through ``games``."""
