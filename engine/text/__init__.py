"""The French text toolkit, one module per idea, for perception, claims, the evidence graph and fallacies:
``fold`` (fold / word_key / name_key), ``stopwords`` (one core, one named list per purpose), ``numbers``
(month and number words, ``parse_number``, ``digits``), ``amounts`` (scale words), ``dates`` (spans read with
dateparser through ``bridges.dates``), ``terms`` (the words a lexical search compares), and ``formatting``
(numbers, money and dates written for people)."""
