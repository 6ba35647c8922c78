"""The balance review: value model, tables, charts, the report, site and PDF."""
