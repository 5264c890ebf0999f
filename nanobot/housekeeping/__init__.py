"""Work off the user's path that runs a whole agent: a session's housekeeping and the daemon's scheduler."""
