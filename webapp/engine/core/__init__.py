"""The simulation machinery: the virtual clock, processes on it, and the transition log."""
