from lexlogic.engine.claims.extract import extract_claims, is_claim

SUBMISSION = """CONCLUSIONS POUR LA SOCIÉTÉ ALPHA

I. LES FAITS

1. La société Alpha fournit la société Beta depuis le 1er janvier 2012.
En effet, Beta a notifié la rupture par lettre du 12 mars 2021, avec un préavis de trois mois.
Le chiffre d'affaires d'Alpha avec Beta s'élevait à 1 200 000 euros HT en 2020.
Pourquoi Beta a-t-elle agi ainsi ?

II. EN DROIT

Il convient de rappeler que l'article L.442-1 II du code de commerce sanctionne la rupture brutale.
PAR CES MOTIFS, plaise au tribunal de condamner Beta.
"""


def test_offline_extraction_keeps_facts_and_drops_argument():
    claims = extract_claims(SUBMISSION, client=None)
    assert claims == [
        "La société Alpha fournit la société Beta depuis le 1er janvier 2012.",
        "Beta a notifié la rupture par lettre du 12 mars 2021, avec un préavis de trois mois.",
        "Le chiffre d'affaires d'Alpha avec Beta s'élevait à 1 200 000 euros HT en 2020.",
    ]


def test_filters():
    assert not is_claim("I. LES FAITS")
    assert not is_claim("Pourquoi Beta a-t-elle agi ainsi ?")
    assert not is_claim("Il convient de rappeler la jurisprudence constante en la matière.")
    assert is_claim("Alpha n'a reçu aucune mise en demeure.")
