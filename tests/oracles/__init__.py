"""Independent reference implementations that only the tests use (issue 42 item 5): the package
is checked against them, and does not ship them."""
