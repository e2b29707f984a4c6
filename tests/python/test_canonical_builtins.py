"""The canonical TOML of every built-in scenario, byte for byte, as recorded.

The run cache keys a run by the canonical text ``atmsim._core.validate`` returns
(``atmsim.sweep.execute.identify``), so a rewrite of the scenario files (``base`` chains, moved
comments) must leave it unchanged. ``CANONICAL`` holds its SHA-256 for each built-in, plain and
with the overrides of ``OVERRIDES`` (as reproductions apply them).

To re-record after a change that is meant to change a scenario (every cached run of it is then
a different run), print the new table and paste it here::

    python -c "import tests.python.test_canonical_builtins as t; t.record()"
"""

from __future__ import annotations

import hashlib

import pytest

import atmsim
from atmsim import _core, scenarios

OVERRIDES: dict[str, list[tuple[str, str]]] = {
    "plain": [],
    "short": [("run.duration", "1.5 s"), ("run.warmup", "0.5 s")],
    "seed7": [
        ("run.duration", "3 s"),
        ("run.warmup", "0.5 s"),
        ("run.sample_every", "1 s"),
        ("run.seed", "7"),
    ],
}

CANONICAL: dict[tuple[str, str], str] = {
    (
        "an1997-n10-10ms",
        "plain",
    ): "28c03ff1e8a40932b88c682394846a54012631422c91c1a448216f054173efe0",
    (
        "an1997-n10-10ms",
        "seed7",
    ): "c7265984d2dd382e4537d45d261622cc6f6d6712207d7806b387ef6a139f6ce6",
    (
        "an1997-n10-10ms",
        "short",
    ): "349fb37a31f1aae988b48ed2ec59edb173c0f95da6a21089e297977fba8a8d7e",
    (
        "an1997-n2-100ms",
        "plain",
    ): "d09e3f660c0e91436d9ad54a0e1bdfa07c715a4eccbae099c6678f9df607cf86",
    (
        "an1997-n2-100ms",
        "seed7",
    ): "c316ac69ef4aa214b671f406c8abc85b64c27a6f65d61407ee113dfd5971d9a5",
    (
        "an1997-n2-100ms",
        "short",
    ): "692eb22b3ca5916956c49b86b3f9cfcc40d2e8ed705ca5e0c0924eb4ced1bd5e",
    ("an1997-n2-10ms", "plain"): "ffebd841da01bf98098ebd9e37e5efd693b35ea399ad074c76aacadd3550f2ed",
    ("an1997-n2-10ms", "seed7"): "c35f380450645fcd2a1c727bcbd85a17eebe2305bf2480770d5d3459c640c518",
    ("an1997-n2-10ms", "short"): "32651dbf9c58b7a6ec427152a2a5753b19306761a5704f062a4b774b17e687e9",
    (
        "an1997-n2-buffer1500",
        "plain",
    ): "bc2ce1ac39ecd46931b577cab0daa86af046f098615f6bcd1aeb04c9c164accd",
    (
        "an1997-n2-buffer1500",
        "seed7",
    ): "c9cd7006f75101d3c6b2ca729fdb4c21d6c33096bdece6560130c65ece602178",
    (
        "an1997-n2-buffer1500",
        "short",
    ): "b130f811a671c2505ea3b70bf449e6240307ebc92aaeb4dc1c7806164cf58918",
    ("an1997-n5-10ms", "plain"): "c7244aeba01f97b9cca29c753d3609273fe55a98ca77ac38f4afa1083bc9c1dd",
    ("an1997-n5-10ms", "seed7"): "428a3d4bca1998cf6979a773e7a6e515b9d47ed2f0b87bceb69e0196b965b81b",
    ("an1997-n5-10ms", "short"): "8c9e3124e1bc060dcfb14fe0f485941a9219ead87968e5be48c51873f44376f2",
    (
        "bench-parking-lot-vbr",
        "plain",
    ): "e2b496fb2266d8389067cf1d7598434f66aa0b8d17082e1b4b3207f62b327363",
    (
        "bench-parking-lot-vbr",
        "seed7",
    ): "0e815b75588800f5cb06f50f6b2d6bbf802988d564a1ff625e6a084cb6c5edd9",
    (
        "bench-parking-lot-vbr",
        "short",
    ): "daa58e189bbfeb873e28d3bd0cd21772933a4d3f3efc95de202c2893999b5f3a",
    (
        "bench-parking-lot",
        "plain",
    ): "f78bdf55c1ca001bb69713ad8a588d38299265dbf122d0dc481a99b604db35c2",
    (
        "bench-parking-lot",
        "seed7",
    ): "6f30f13fe163741e33aede6bfd580c6f674c819ad024d3e9c7597219a2b3a7dd",
    (
        "bench-parking-lot",
        "short",
    ): "33f847d6baabb2745553832c2a8979217a8dd6ad5ae2eb571a36a4f00a1aa8ce",
    (
        "cheon1998-epd-1500",
        "plain",
    ): "332e159ce7856d598ff4fa0720837bdfb258aef2ae33576863653b313d0ee78f",
    (
        "cheon1998-epd-1500",
        "seed7",
    ): "9e74ad9a6f9175a430ebe2124c9c0e5786f07d6ebeba6aeb77303935fd39418a",
    (
        "cheon1998-epd-1500",
        "short",
    ): "50357a5d8afeb28758927ddb9dbdd24795e2822c20c8c76a2e2d022c04cfa14d",
    (
        "cheon1998-epd-500",
        "plain",
    ): "aeb2e75753a19eb53de78bb1adc597d0e9a8038e4004c136e02bd0cc39de5838",
    (
        "cheon1998-epd-500",
        "seed7",
    ): "29aefc5d0fd4549c0b7bcafa092f6c249e0f5088fe11e9ec8aecb5f85acdecd6",
    (
        "cheon1998-epd-500",
        "short",
    ): "9e24552979e8331b628e86bcb859b21621be6c7be699c465f7da574526b40d85",
    (
        "cheon1998-espd-1500",
        "plain",
    ): "e50246d1481b0799e1b930707dbff42e4c637b303858fb16afdcf1ac6b984adc",
    (
        "cheon1998-espd-1500",
        "seed7",
    ): "d56cc729ff50279d99a09612874a690a41b39122e01fc7139bf22c1ca2991674",
    (
        "cheon1998-espd-1500",
        "short",
    ): "454b1262deb097f51ffec2c4ad7bbcb90f9048e299e671eb4469ac2695197f29",
    (
        "cheon1998-espd-500",
        "plain",
    ): "3d3acd171666709a2ce1f841eed89dba7632e8825edd105498d6d2202b01efef",
    (
        "cheon1998-espd-500",
        "seed7",
    ): "774884b74dd3a72a9da426eb5086dc0648517f00f31ec0da64f6cde2190f4b9d",
    (
        "cheon1998-espd-500",
        "short",
    ): "b0c3da02d69e8a45f13ddf00d2a64ad36bf5c293790e7891979c2afbabf77168",
    (
        "fang1994-an2-n1",
        "plain",
    ): "1c76f8d47d6f0ca45ed7a702047fb5c639e6f21a7821b6a0c074f2a1c316ea24",
    (
        "fang1994-an2-n1",
        "seed7",
    ): "a3504b0d959084877aa6270afb25367a347ee1a7671f70dfc8a2e086b8948609",
    (
        "fang1994-an2-n1",
        "short",
    ): "e9ae30f3e5ba7d08e1c6fdf65631beeacb2762cb337ad5f98e0a2beff378e02e",
    (
        "fang1994-an2-n2",
        "plain",
    ): "b9840fbd63a7795ad3174b1617f98c1213ce91da1286c61a1538487c4af29819",
    (
        "fang1994-an2-n2",
        "seed7",
    ): "4607c2c9b36160df1ac538c51e2e11a2d1d61a8bb7fed610ba4d4907b8fb3b11",
    (
        "fang1994-an2-n2",
        "short",
    ): "4d5cbc50cc7ff58dbd06d9e7549aa5d9495c5cc1edcea086aeb85a0613835450",
    (
        "fang1994-an2-n3",
        "plain",
    ): "db19e2f98ea069f6f5067bbf9e4ba686f79595d8c3370701731bee48a2fd4b8d",
    (
        "fang1994-an2-n3",
        "seed7",
    ): "84c37854ad82ce0eda6991745fc36e8c413ec296a64c54707fb8891b95edea9d",
    (
        "fang1994-an2-n3",
        "short",
    ): "097184f1c8b6a8296eaea67c0accae48e2b3bf4066d4df2540ae4882548303aa",
    (
        "fang1994-an2-n4",
        "plain",
    ): "949ede5bbebdc2a1734d9c46bb7246809965c46b114a770e3141eaa216ff2705",
    (
        "fang1994-an2-n4",
        "seed7",
    ): "482472a9e062185e5b6dd3e93425521fb75288f9e7d746a240c8dec2cea81d5c",
    (
        "fang1994-an2-n4",
        "short",
    ): "ccd7df0c1feda3ce85a2b97a629313f30bc5221b0057ccfe59c13d082e031dd6",
    (
        "fang1994-an2-n5",
        "plain",
    ): "c48482a74c5912f1b7a7d50db8c88171052c751214ed4e6c5dd8fed9d1976603",
    (
        "fang1994-an2-n5",
        "seed7",
    ): "19447280c500635f020d82a780ad65f59b2e53144da9a7c92e04c061bd368f47",
    (
        "fang1994-an2-n5",
        "short",
    ): "f1ac37d1785890cf726445b79d5ff6af574838ff6d573b57858715b711836da7",
    (
        "fang1994-an2-n6",
        "plain",
    ): "b3fab38412f834e340c4ea3ebcff031652d81dbfbc13118d940971809e644ec2",
    (
        "fang1994-an2-n6",
        "seed7",
    ): "48b8ca164b2953004a402bc3d63e95720167c58724e5e3f4ae9b7ff739847b74",
    (
        "fang1994-an2-n6",
        "short",
    ): "1062d5a523335886b0ad8825ebd7f704b9305f469de266e4c40080a7813ddaca",
    ("fang1994-an2", "plain"): "e447e33cf1f24f6b976a7e7844ede15be6b9762cfffdc3577b2912265a459e69",
    ("fang1994-an2", "seed7"): "e5b8fe36d1bc96180855386b1441524a78a008a3cb36e308af84ba60af11e4a6",
    ("fang1994-an2", "short"): "3d79ecaea96c92db59663c701bd8c2fc211b6aa5f8a5d28cfb2a357e4207be6d",
    (
        "fang1994-cell-drop-n1",
        "plain",
    ): "3ecee77658bda329cda6bb952470cff753cace6eb6e53dbcec0434fc60052908",
    (
        "fang1994-cell-drop-n1",
        "seed7",
    ): "28eeefbbb7a5dd6a7fd6d9ab62db57719ffc0401e2873ef6a87b4f8dbe4cbd67",
    (
        "fang1994-cell-drop-n1",
        "short",
    ): "9ebfe64be7e9f03f3d80a304fb36dba7238d511d81de75e0cdaa907a6004e4b6",
    (
        "fang1994-cell-drop-n2",
        "plain",
    ): "9187f87e6aef999ae6a0e80abe2f21b7381b8ba477853c9bf17a2f7f35e037fd",
    (
        "fang1994-cell-drop-n2",
        "seed7",
    ): "aada5b36f72bad9e08668c76bed7a2b7b75f2049591e2b6927f924f89307b059",
    (
        "fang1994-cell-drop-n2",
        "short",
    ): "af9c49544d156ee464ae519d4defb968eb15a44ed76aafef0abd2d1994d24709",
    (
        "fang1994-cell-drop-n3",
        "plain",
    ): "8bf7179503c132e36799dba23867cb0fa28003d74cfd261d5d4486dce6e25ebe",
    (
        "fang1994-cell-drop-n3",
        "seed7",
    ): "80fe8d479b7fe2ed44ef55176c6df6bf91408eee759c1b22246638123617d072",
    (
        "fang1994-cell-drop-n3",
        "short",
    ): "22e6ac8cb60e239db7caf6eb54ee273c665f90368225b407d322e150523cf6bd",
    (
        "fang1994-cell-drop-n4",
        "plain",
    ): "fbffc3fa3835d9bf7852985058534b736db7c5b2ecacf0cd488d65198172b174",
    (
        "fang1994-cell-drop-n4",
        "seed7",
    ): "24a2954511f6ec4485dc9164951c55c8b28ed1923aaeecb19cee3cdecd8a8fa1",
    (
        "fang1994-cell-drop-n4",
        "short",
    ): "30ec0218a137f8f66fc8d4fcf08967061ac0a846fd3b4d61d4769c97886efb82",
    (
        "fang1994-cell-drop-n5",
        "plain",
    ): "373017b31948e6d7cf43544298a72b6c9359d596ba5678fba8c8a439efcef87c",
    (
        "fang1994-cell-drop-n5",
        "seed7",
    ): "08dd4677fb3d3e54b0ee8da461399c49f7affdc5216f8b80efbbc353032ca0f5",
    (
        "fang1994-cell-drop-n5",
        "short",
    ): "2b33b93374a48a671bbfc6360e7d8150e4db6f780848ed81754600f82f636e8f",
    (
        "fang1994-cell-drop-n6",
        "plain",
    ): "67efccafa78a717da2e1bc954bef713c9a3e3a5a12cdf7a72d477c1905998420",
    (
        "fang1994-cell-drop-n6",
        "seed7",
    ): "398616e3563194f2dc1e1ba157fcb6b7066a0369dd12f5b51ae270f8a155e92b",
    (
        "fang1994-cell-drop-n6",
        "short",
    ): "ee3a7738e4db8a52f70772b086293461e54aafe361d731ad01fdc1392ef9537a",
    (
        "fang1994-cell-drop",
        "plain",
    ): "25c84db6420d7a15baabd48903e52bd8a53aea8c369b34851b2384a1a51ecb4d",
    (
        "fang1994-cell-drop",
        "seed7",
    ): "cdb4000acfd3005b1865698ff34b6aecf3fdbb7b69becacb6ae923c2cea21f26",
    (
        "fang1994-cell-drop",
        "short",
    ): "365f93211ed94878f6b2c21db1d6b54a23676f22a0055c2ec1583c8c37c1cf74",
    (
        "fang1994-mss64-alone",
        "plain",
    ): "93747e77c2991ce311c08c96585259a20caddd00ee01789d07abd5ff3d5cecf3",
    (
        "fang1994-mss64-alone",
        "seed7",
    ): "379dc593fd6d3b8dff0cedddbcb3ac9a19e8a86006b7e401fc989af24e22e533",
    (
        "fang1994-mss64-alone",
        "short",
    ): "ef19f94ba3cc2461b964f364db6baea61f3f906b49b4c51f92f86d654be627b0",
    ("fang1994-mss64", "plain"): "91e2d27dc44533cac10cbf897dd6289dc61fc09ed2757476bb1cc7a3a3c22f63",
    ("fang1994-mss64", "seed7"): "f89a93dc050b4ff80e31ca828b2745b7a06ad2a6bae39a8d87866db4c804f767",
    ("fang1994-mss64", "short"): "50b9d40a6e652199304c197e6e566de50427d9cbf56575f9c2b9b8557a60a663",
    ("goyal1998-fifo", "plain"): "a09e956a04226008e817bae87a7184325d68b666dcee7d513d84cad856304fb6",
    ("goyal1998-fifo", "seed7"): "dd4124fa43253c47414f6fc159786c394295a400207eb8197aa57759bbda0e91",
    ("goyal1998-fifo", "short"): "d4d668fc1774c05885c4ac1fc0ba5926a8eef77bba4a526069c00f10e562aaec",
    ("goyal1998-fig3", "plain"): "63b37283e8fe5ad447fe26b8f3fa16d4ccb68edda94c34c4bc677a736a1a68a5",
    ("goyal1998-fig3", "seed7"): "edc83bbc3f4c5961b9e6216497d1be46ecb2ad2fda2dcf8d95438b3c67560f25",
    ("goyal1998-fig3", "short"): "ca084ab9934c0dc6eba667ee779ec314484eb37288cdb6293b0e0d96e3b54d88",
    (
        "goyal1998-merge",
        "plain",
    ): "34df56f8867e2cc0c7f88f99afb2aef094b3dd7f8e69a685d18fdb41356c1aaa",
    (
        "goyal1998-merge",
        "seed7",
    ): "a12d22691e5d463aabaf6dee5ca6171c6d28a3dae61a8826ede81b46ff7dc77b",
    (
        "goyal1998-merge",
        "short",
    ): "05c61098fd93ae8465fe2b863c44660cf9c5077b43a8e40239772ab5d07d54d4",
    (
        "kalyanaraman1996-table1",
        "plain",
    ): "5cc485e14dbcc255035e3146cb324a41e51577237ed415717518363fc5405fb7",
    (
        "kalyanaraman1996-table1",
        "seed7",
    ): "093dc6e2ee49bd04fb5470143e3c0f8e35508e348764900e49b936f800a943fb",
    (
        "kalyanaraman1996-table1",
        "short",
    ): "516b1875283f5f3953654a00b981427402c90d3504611fd0244c2d44846cbc3d",
    (
        "kalyanaraman1996-table2",
        "plain",
    ): "c0a55bbd37ab8ea09e58b3259fc898263a1666c62a1f67546a191d1a251bafe4",
    (
        "kalyanaraman1996-table2",
        "seed7",
    ): "3ecbf571727299dc6d54bbaba3a81f778d1501a1135093d54a49cc529cd3d7a0",
    (
        "kalyanaraman1996-table2",
        "short",
    ): "3a38e6950b09c85f20121aac02bc0b861ffcd5a0993dc925ac62dd7ed77fd5be",
    (
        "kalyanaraman1996-table4",
        "plain",
    ): "6f89f284f6444935d994eff5594301d22562c4e87e4d0c2376d1d07aaedbb7d4",
    (
        "kalyanaraman1996-table4",
        "seed7",
    ): "dfe0fd0754a7d5382adc3e9e78d4102cefc008348c2ad0311b323b756e8343f4",
    (
        "kalyanaraman1996-table4",
        "short",
    ): "61f21975008c754154c2ce6fa81a6fe1431b3c88a69ec855f7878e3835ceb585",
    (
        "vbr-priority-5tcp",
        "plain",
    ): "d2922697e82f362109e1aae6bacf6f5bb4b86fd20db486c53c45dc63f9a09e11",
    (
        "vbr-priority-5tcp",
        "seed7",
    ): "ab5300a94e077e464fa55c6cafb8d3ca7772380b6e7d796afeb36b020a9b9ed9",
    (
        "vbr-priority-5tcp",
        "short",
    ): "7ff24b30be7bf472d8273d5c3da02d63792c9c2a40bb556843d6075d17334cf6",
}


def _digest(name: str, tag: str) -> str:
    text, source = scenarios.resolve(name)
    return hashlib.sha256(_core.validate(text, source, OVERRIDES[tag]).encode()).hexdigest()


def record() -> None:
    """Prints ``CANONICAL`` for the scenarios as they are now."""
    print("CANONICAL: dict[tuple[str, str], str] = {")
    for name in scenarios.names():
        for tag in OVERRIDES:
            print(f'    ("{name}", "{tag}"): "{_digest(name, tag)}",')
    print("}")


def test_every_builtin_is_recorded() -> None:
    assert sorted({name for name, _ in CANONICAL}) == scenarios.names()


@pytest.mark.parametrize(("name", "tag"), sorted(CANONICAL))
def test_canonical_text_is_unchanged(name: str, tag: str) -> None:
    assert _digest(name, tag) == CANONICAL[(name, tag)], (
        f"{name} ({tag}): its canonical TOML changed; see this file's docstring"
    )


def test_the_api_validates_to_the_same_text() -> None:
    assert atmsim.validate("cheon1998-espd-1500") == _core.validate(
        *scenarios.resolve("cheon1998-espd-1500"), []
    )
