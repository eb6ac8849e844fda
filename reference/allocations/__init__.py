"""The allocation rules' references, one module each, mirroring ``study/allocations/``: each
defines ``sizes(prompts, group, words, r)``, pass r's group size of every prompt
(``reference.prompts.Prompt``: its policy and counts) with the configured size ``group`` and the
run's key words ``words``."""
