"""Readers of the shipped data files (``app/data``), one module per kind of source. They feed
the seeder and the importer only; at run time the catalog is read from the database."""
