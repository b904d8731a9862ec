from lexlogic.engine.claims import facets as fx


def test_dates_amounts_durations_percents_counts():
    f = fx.read(
        "Par lettre du 12 mars 2021, Beta a notifié un préavis de trois mois ; "
        "le chiffre d'affaires était de 1 250 000 euros HT, en baisse de 30 %, après 184 commandes."
    )
    assert f.dates[0].year == 2021 and f.dates[0].month == 3 and f.dates[0].day == 12
    assert f.dates[0].role == "of:lettr"
    assert f.durations == [3.0]
    assert f.amounts == [(1_250_000.0, "ht")]
    assert f.percents == [30.0]
    assert f.counts == {"command": 184.0}


def test_number_words_and_units():
    assert fx.parse_number("dix-huit") == 18
    assert fx.parse_number("quatre-vingt-dix") == 90
    assert fx.parse_number("1.500") == 1500
    assert fx.read("un délai de deux ans").durations == [24.0]
    assert fx.read("1,5 million d'euros").amounts == [(1_500_000.0, "")]
    assert fx.read("relancé à trois reprises").counts == {"fois": 3.0}


def test_date_roles_and_compatibility():
    f = fx.read("préavis courant jusqu'au 12 juin 2021, à compter du 1er janvier 2012")
    assert [d.role for d in f.dates] == ["end", "start"]
    assert fx.DateValue(2021, 3, None).compatible(fx.DateValue(2021, 3, 12))
    assert not fx.DateValue(2021, 3, 15).compatible(fx.DateValue(2021, 3, 12))


def test_negation_scope_stops_at_conjunction():
    f = fx.read("Zeta n'a accordé aucun préavis et a cessé toute commande.")
    assert "preavi" in f.negated and "command" not in f.negated
    assert fx.read("La rupture est intervenue sans préavis.").negated == {"preavi"}
    assert not fx.read("Beta a notifié la rupture.").sentence_negated


def test_modality_and_parties():
    assert fx.read("Beta envisage de rompre la relation.").modality == {"hypothesis"}
    assert fx.read("Chaque partie peut résilier.").modality == {"permission"}
    assert fx.read("Le préavis doit être écrit.").modality == {"obligation"}
    f = fx.read("Le 8 mai, la société Beta a notifié à Alpha la rupture.")
    assert f.parties == {"Beta", "Alpha"} and f.agent == "Beta"
    g = fx.read("La rupture a été notifiée par Beta à Alpha.", {"Alpha", "Beta"})
    assert g.agent == "Beta"
    assert fx.read("Delta garantit à Gamma un volume.", {"Delta", "Gamma"}).agent == "Delta"


def test_sentences_keep_abbreviations():
    text = "Article 5 – Résiliation. Voir art. 4 du contrat. Le préavis est de 3 mois."
    spans = fx.sentences(text)
    assert [text[s:e] for s, e in spans][1] == "Voir art. 4 du contrat."
