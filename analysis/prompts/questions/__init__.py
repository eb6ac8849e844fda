"""Every table of a many-prompts study, one module each, by the protocol of ``analysis.questions``
(its ``Inputs`` carry the study's tidy ``runs`` and its ``environments``, no ``outcomes``)."""
