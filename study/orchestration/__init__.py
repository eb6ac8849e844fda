"""Running a study: shards through the kernel (``runner``), their cache (``shards``), where they
run (``backends``), the files written (``storage``) and their provenance (``manifest``)."""
