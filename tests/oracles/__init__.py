"""Row-by-row copies of official rules, written as plainly as the rules read: the tests hold the package's
column-wise implementations to them, row by row, on generated awkward inputs. The package never imports
them."""
