"""The program that runs on the Pi: camera sources, GPIO panel, the table loop, the journal, the CLI."""
