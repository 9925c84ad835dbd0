"""What every game shares: cards, tiles, the colex index, rule-file reading, the
notation's characters, errors and terminal progress. Imports nothing else of ``solver``."""
