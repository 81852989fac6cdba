"""The benchmarks of videorag, one entry over a registry: `python -m benchmarks NAME [options]`
(`python -m benchmarks` lists them). Run from the repository root; `registry.py` names them,
`driver.py` holds the options they share (`--out`, `--work`, `--set`) and writes their results."""
