"""Reading a source video: what it is, which instants become frames, one decode in order,
and the reductions the analysis shares."""
