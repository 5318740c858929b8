"""Numbers as text, many at once and exactly as Python writes them (`%.4f`, `json.dumps`), and the output of
`mmgauge score m3gia` written from score columns. Formatting only: the numbers come from `scoring/`, the arrow
kernels from `datasources/arrow_numpy.py`."""
