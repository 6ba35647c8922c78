"""Card data: the typed card models, name matching, views and the importers."""
