"""Builds the two PDFs of the example dossier (committed; rerun to regenerate):

- the termination letter, a PDF WITH a text layer (printed from HTML by headless Chromium);
- the formal notice, a SCANNED page (text rendered to an image with Pillow, saved as an image-only PDF).

    .venv/bin/python -m tests.pipeline.dossier_assets
"""

from __future__ import annotations

import html
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

DOSSIER = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "dossier"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"

LETTER = """DISTRIMARCHÉ SA
40 quai Perrache, 69002 Lyon

Biscuiterie des Monts d'Arrée SAS
12 rue du Moulin, 29600 Morlaix

Lettre recommandée avec accusé de réception

Lyon, le 18 mars 2024

Objet : Résiliation du contrat-cadre de fourniture du 4 mars 2013

Madame, Monsieur,

Nous vous confirmons la résiliation du contrat-cadre de fourniture du 4 mars 2013, qui vous a été
notifiée par courriel du 15 mars 2024.

Conformément à ce courriel, vous bénéficiez d'un préavis de trois mois ; nos dernières commandes
seront passées au plus tard le 15 juin 2024.

Nous vous prions d'agréer, Madame, Monsieur, l'expression de nos salutations distinguées.

Sophie Garnier
Directrice des achats"""

NOTICE = """DISTRIMARCHÉ SA
40 quai Perrache, 69002 Lyon

Biscuiterie des Monts d'Arrée SAS
12 rue du Moulin, 29600 Morlaix

Lyon, le 9 octobre 2023

Lettre recommandée avec accusé de réception

Objet : Mise en demeure - retards de livraison

Madame, Monsieur,

Nous constatons des retards de livraison répétés depuis le mois de juin 2023 :
douze commandes ont été livrées avec plus de cinq jours de retard.

Ces retards constituent un manquement à l'article 6 du contrat-cadre.

Nous vous mettons en demeure de respecter les délais de livraison
contractuels dans un délai de quinze jours.

Veuillez agréer nos salutations distinguées.

Sophie Garnier
Directrice des achats"""


def make_letter_pdf(out: Path) -> None:
    body = "".join(f"<p>{html.escape(line) or '&nbsp;'}</p>" for line in LETTER.split("\n"))
    page = (
        "<html><head><meta charset='utf-8'><style>@page{size:A4;margin:2cm}"
        "body{font-family:'DejaVu Serif';font-size:11pt} p{margin:0 0 2pt 0}</style></head>"
        f"<body>{body}</body></html>"
    )
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "letter.html"
        src.write_text(page, encoding="utf-8")
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-pdf-header-footer",
                f"--user-data-dir={tmp}/profile",
                f"--print-to-pdf={out}",
                src.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def make_scan_pdf(out: Path, dpi: int = 200) -> None:
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    img = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, int(dpi * 11 / 72))
    y = int(dpi * 0.9)
    for line in NOTICE.split("\n"):
        draw.text((int(dpi * 0.9), y), line, font=font, fill=0)
        y += int(dpi * 11 / 72 * 1.6)
    img = img.point(lambda v: 0 if v < 160 else 255).convert("1")
    img.save(out, "PDF", resolution=dpi)


if __name__ == "__main__":
    make_letter_pdf(DOSSIER / "06-lettre-resiliation.pdf")
    make_scan_pdf(DOSSIER / "07-mise-en-demeure-scan.pdf")
    for p in sorted(DOSSIER.glob("*.pdf")):
        print(p.name, p.stat().st_size, "bytes")
