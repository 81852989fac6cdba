"""The real-speech dev set: recorded English speech from packages' test data, rendered as videos."""
