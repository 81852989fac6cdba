"""The multilingual benchmark's clips, its report and the e5 calibration (`bench_languages.py`)."""
