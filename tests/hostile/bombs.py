"""Hostile files made on the fly (nothing big is stored in the repository)."""

from __future__ import annotations

import zlib


def pdf(streams: list[bytes], pages: int = 1, compress: bool = True) -> bytes:
    """A minimal valid PDF: `pages` pages sharing one content stream per entry of `streams`."""
    objs: list[bytes] = []
    n_streams = len(streams)
    first_page = 3 + n_streams
    kids = " ".join(f"{first_page + i} 0 R" for i in range(pages))
    objs.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode())
    for data in streams:
        body = zlib.compress(data, 9) if compress else data
        filt = b"/Filter /FlateDecode " if compress else b""
        objs.append(b"<< " + filt + b"/Length " + str(len(body)).encode() + b" >>\nstream\n" + body + b"\nendstream")
    contents = " ".join(f"{3 + i} 0 R" for i in range(n_streams))
    for _ in range(pages):
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [{contents}] >>".encode())
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + o + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pdf_bomb(inflated_mb: int = 200) -> bytes:
    """~200 KB on disk, a content stream of `inflated_mb` MB of spaces once inflated."""
    return pdf([b" " * (inflated_mb * 1024 * 1024)])


def text_pdf(text: str = "Contrat cadre de distribution") -> bytes:
    return pdf([f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET".encode()], compress=False)
