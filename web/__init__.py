"""Flask app: the table display, the spectator page, the API and the live stream."""
