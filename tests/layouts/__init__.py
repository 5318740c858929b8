"""One benchmark's data in the layouts other toolkits keep it in, built with `mmgauge.testing.hf_layouts`'s
generic writers for the tests of several packages (hub cache, locate, sessions). The package never imports
them."""
