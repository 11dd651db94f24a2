"""ringlab: ring AllReduce collectives and their analysis, from Python."""
