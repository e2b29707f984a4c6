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
    ): "7410c1badd9d87251134236e358f1c33e34d51992e8cbe6a456343d28add94e5",
    (
        "an1997-n10-10ms",
        "short",
    ): "1ab71ceb97c892ef45a1a24e3a68e70750842ba02078ad3417f999753541a033",
    (
        "an1997-n10-10ms",
        "seed7",
    ): "3b79e6e947e5a070c02340696cb37d1eb9eb4634150690861644f420bff32446",
    (
        "an1997-n2-100ms",
        "plain",
    ): "a0e9557cef3be56ab5b7cae3bd2d7c833ac538add245988cb5234a98bac5cc56",
    (
        "an1997-n2-100ms",
        "short",
    ): "5034daf9eee1488f4563c78b07c5dc7966b964d1955136ce7153309c52dbc272",
    (
        "an1997-n2-100ms",
        "seed7",
    ): "ab082349ac65e423297c0edb77194bc3cff71fc294d02be2bd373f6409016592",
    ("an1997-n2-10ms", "plain"): "12ec49345536da94dbf5ce47942603982df5a385a03ef33f8b07370857b14b06",
    ("an1997-n2-10ms", "short"): "e430da7de78494d980f0556f138000730801031697bb139577eca4a98edd31cc",
    ("an1997-n2-10ms", "seed7"): "89dd323b6d2d37bb654e43049e273d8a8299a3b92b07f1ccac568521d6004ef8",
    (
        "an1997-n2-buffer1500",
        "plain",
    ): "b0bc6c0a9083b66ffe5d62b89614fc7024186a60cb10e1e63b531ea1faffcdce",
    (
        "an1997-n2-buffer1500",
        "short",
    ): "66cc239bf3eaaf6e1028cf0e58b21959864b9ec22ccaff21d5c2ae0246e246af",
    (
        "an1997-n2-buffer1500",
        "seed7",
    ): "da0e854f1ab31e9ac40609a67b7a1ae4404b2234494b8e75c85b84ef40e2e29d",
    ("an1997-n5-10ms", "plain"): "07e96dc9bef557fb0269e1611d326d1d7cc4e1591a0a1019cdf09a128b1ecf76",
    ("an1997-n5-10ms", "short"): "f95cb8d2744b5570fff73b20dc92835071475b0725b8719d77ae8c05db8a6390",
    ("an1997-n5-10ms", "seed7"): "f0a808820c1bb2db4ece0d9d075df81323e2096694b824de42b466769b7a28c7",
    (
        "bench-parking-lot",
        "plain",
    ): "183d35429c02d1b31534959963fa1b96026c864fea779778dc2aa9d6a0a5b5e2",
    (
        "bench-parking-lot",
        "short",
    ): "7b9241620ae8974ba85bf597f233dd372a5b11235167906ab60cb9cf19a94361",
    (
        "bench-parking-lot",
        "seed7",
    ): "61f756c9a05931844d78351e4e6acd88739bd8a920f3845d12da7e101a1032df",
    (
        "bench-parking-lot-vbr",
        "plain",
    ): "841320ab7c430f779235ceff45ad2c0d91eb9c92ed427485400891709e8eca87",
    (
        "bench-parking-lot-vbr",
        "short",
    ): "152b3fb18254ad3745cc13d29dc2e31887077fe00973babf6dfdc9c268c6116d",
    (
        "bench-parking-lot-vbr",
        "seed7",
    ): "91ca79511cc5fc7af2a34d1edd079c7b39d01f462825458ddbe46d67152b410a",
    (
        "cheon1998-epd-1500",
        "plain",
    ): "4658ed207dd9225937f375a38bf7e24d26ce9cb5f019e18c871cac26bf1e5d81",
    (
        "cheon1998-epd-1500",
        "short",
    ): "b7735d6c3d5973c5c709be818fba7240e5ace1883e372b8cac50086d8089cd3e",
    (
        "cheon1998-epd-1500",
        "seed7",
    ): "23bda57abef5a0710821b6ef855e1075a90d3c2577683e150e3d94c28fb23eb0",
    (
        "cheon1998-epd-500",
        "plain",
    ): "166c940ae48f3449bcbb26bbe1a819e3a8cfc07ebcf36c9f15a7c4fd1614c744",
    (
        "cheon1998-epd-500",
        "short",
    ): "88b7af148711c91a77edff28749c39ddaebdeb83a57fe0fafdc1d505823d450d",
    (
        "cheon1998-epd-500",
        "seed7",
    ): "c3e82b972182afdb981ee797c2e810c48c8d85fb52a890a349786f63f6f7796b",
    (
        "cheon1998-espd-1500",
        "plain",
    ): "d22921f253647c693513ac0202c1c3dc079c1350d8b9c4006b79506fa909c6cf",
    (
        "cheon1998-espd-1500",
        "short",
    ): "15fb0d5a5aab0a027934f5d14c06008c18a80ccb72b9f15dc44a312fb9a974f7",
    (
        "cheon1998-espd-1500",
        "seed7",
    ): "206c667210d14efdb77b2a324aa2b0110de66f40afd15c241ea9469295218c09",
    (
        "cheon1998-espd-500",
        "plain",
    ): "46f15488e6899ddadfe90f1bb347de126bb4e84ccdfcc0ab733416dc8000a44e",
    (
        "cheon1998-espd-500",
        "short",
    ): "9ce570d7af360941dd73eef91eff49d993ad461d663b4fe210bf3bde0443ad4e",
    (
        "cheon1998-espd-500",
        "seed7",
    ): "38e005958813dc62de84e5baee4b0d1117c2fb9348529ee228fbeaff4959cd37",
    ("fang1994-an2", "plain"): "df9fb882e9c0d3f14cff5c5615676754fdf1c51637b89eba4a74602492851565",
    ("fang1994-an2", "short"): "062dd978407c32828f10c70ae89fd35aa127ebd89ba83106bdae576c73304333",
    ("fang1994-an2", "seed7"): "af5d0a3e7fca4a4e72e2e3a4cf7102f6bd47bbdffa95f54bd9a9448b65c021fc",
    (
        "fang1994-an2-n1",
        "plain",
    ): "69b6c4ebc0e6fba9fe25775aa48056cdc8dfbd66697e7ba0f1d40dd31d1ea6fb",
    (
        "fang1994-an2-n1",
        "short",
    ): "52dc350a31d5fec50520130b74dbb8d0dc8b4d4b22ca0cab59d54f567cedd0e7",
    (
        "fang1994-an2-n1",
        "seed7",
    ): "da654e736350ed6787364f4a9ae239dc38ca2d97c29b361fe365acfa91987987",
    (
        "fang1994-an2-n2",
        "plain",
    ): "b73bf4d24b2392862712702b98d3b7042ecc9c2d81bcb09eb6d56fb8d87133f6",
    (
        "fang1994-an2-n2",
        "short",
    ): "16c6d39cf65dea7eaadcaede47924afbc3279c5cfbb0c35e2b8db244de0f68d5",
    (
        "fang1994-an2-n2",
        "seed7",
    ): "21c7b639becccf7a3fc0a861a49f571f37bd2190677858d6c3454954486fad65",
    (
        "fang1994-an2-n3",
        "plain",
    ): "2db122d6798488815c4dc4701405d10db61f4b6ed9e9ba206f422ef5711b3792",
    (
        "fang1994-an2-n3",
        "short",
    ): "334df88ad1370b6d138f38451b77ce2eab9b9125b7a70d7e62c3711ba18599d1",
    (
        "fang1994-an2-n3",
        "seed7",
    ): "95e9e30849768c9bba4effecfc7b5f6576930e0beb60ade5f321c52f5e8e0b93",
    (
        "fang1994-an2-n4",
        "plain",
    ): "aa1953c61784e8cef43d2fe95ce7063cc15ad8b3bb9ea1647b71a73583d9f507",
    (
        "fang1994-an2-n4",
        "short",
    ): "75a197909cc811e4cfca2b354d70d60a51862809bdd17b7804240eae7ea2342a",
    (
        "fang1994-an2-n4",
        "seed7",
    ): "9763fc8d93e80c09f63f650f1cbe67511fd1853b0dc5edc49828a6b417a028b3",
    (
        "fang1994-an2-n5",
        "plain",
    ): "c40443a9511cede1a68f0345c5152729462432914f374b88d26c1a0a7a4a4f6e",
    (
        "fang1994-an2-n5",
        "short",
    ): "ee9a8fb09ced15aedeef9cdd74fb782d9aea1413ac1c03f3333282ff504fdae0",
    (
        "fang1994-an2-n5",
        "seed7",
    ): "b96e1ed35cc203289d51f2042b1ce4fc652e34cabe190d065f966b4a2491144f",
    (
        "fang1994-an2-n6",
        "plain",
    ): "fd7101a682970cbd4ab07e9805209b2dd5150aeaec43174ebaef507458d945c1",
    (
        "fang1994-an2-n6",
        "short",
    ): "862cca66c93dde76d87f0cae093af99fcdff3a5c87d42470fbb4e2371983f0c4",
    (
        "fang1994-an2-n6",
        "seed7",
    ): "f21d8015e086de7d5bb93ab9fa9996125c62ef2be7e05a25ae9b197d7489dc1a",
    (
        "fang1994-cell-drop",
        "plain",
    ): "39fa43454e6d02261fef99fc6727a5c2d412ede7ef439e281c536dbf44043ead",
    (
        "fang1994-cell-drop",
        "short",
    ): "f66814046b83800d67967c1aa4333a7bd4e86bc0733099c9bae8ed208a411ad7",
    (
        "fang1994-cell-drop",
        "seed7",
    ): "70a08a602dc81ba06d591ee8723121d76ea369f532085d7379bd6fdb4e18d541",
    (
        "fang1994-cell-drop-n1",
        "plain",
    ): "99d168f601efc97eccfdb34d763d859d93af605abadb3ee7ebc5f4eb0a6b5b94",
    (
        "fang1994-cell-drop-n1",
        "short",
    ): "98e21d313b08e71cecae8dcaf0299640bb48b2b48ef864519761402148e97ee3",
    (
        "fang1994-cell-drop-n1",
        "seed7",
    ): "4fc12631164cc7707c43445a0e8d91d894d2890f62b2676dc8fa12854b4ac938",
    (
        "fang1994-cell-drop-n2",
        "plain",
    ): "c3b63ea230f3e5c82f68a8dfddd16b85d9d0445bcd73c7c9d4a91715d72b59de",
    (
        "fang1994-cell-drop-n2",
        "short",
    ): "bd39b1224ca9b768a2f7964bd406cc9581b1cc826de809c9dd356f00937daef2",
    (
        "fang1994-cell-drop-n2",
        "seed7",
    ): "0b08c59e731070cfc0a049ffb74ecaab6586319cb4f1f73935afae19f11d28c6",
    (
        "fang1994-cell-drop-n3",
        "plain",
    ): "6706b06d1069678dcca73b4479a2e5ee1a2c1259ca6db280feb9594e931645eb",
    (
        "fang1994-cell-drop-n3",
        "short",
    ): "968ce0de285d1d551fcef2409250283fa7e2a93b71b2a93d872ce7cae91d6d61",
    (
        "fang1994-cell-drop-n3",
        "seed7",
    ): "165603f04ac3e36025f8f12e1347f31d779a7e2e2212c6f697bfd608719fe5a8",
    (
        "fang1994-cell-drop-n4",
        "plain",
    ): "1d0801a9c078404f88eefc039f398495b3bef85c8787e492c5377ee5c8d22b63",
    (
        "fang1994-cell-drop-n4",
        "short",
    ): "f4c30ebc8996feb1e4e52b91a5c6071e04c74c84b3917e4a3e77925003d2bf33",
    (
        "fang1994-cell-drop-n4",
        "seed7",
    ): "5cafa80e43ef439bcc529fb4eb1cfbe91982edfeffa39b7f7a1e97388aef2599",
    (
        "fang1994-cell-drop-n5",
        "plain",
    ): "9f52a588622347db3eaffe0f3f3d5e836e9f1d6ceab37a91f3acba148a67acf0",
    (
        "fang1994-cell-drop-n5",
        "short",
    ): "7a5a7130c2a91f7a13f60637d1a54387b964904f1946fdde7b4af4823e09bbcd",
    (
        "fang1994-cell-drop-n5",
        "seed7",
    ): "196a1c005bde55382927572d8d354d42747ed9ee1857603381d343973ec36477",
    (
        "fang1994-cell-drop-n6",
        "plain",
    ): "4f264ffb5851fc3cba95c10bc6573fd4bc3138eb3761196e82f34f9ec5fb1adf",
    (
        "fang1994-cell-drop-n6",
        "short",
    ): "25268aafd25ccd38ca14eee6d06abc07b7fa9ee1bcdfc4d1c0bc6e99796e5a1f",
    (
        "fang1994-cell-drop-n6",
        "seed7",
    ): "32100e6516355d97c8fab0c9f23bbcc1fd44f6d2a16ff08f355a598a66f81041",
    ("fang1994-mss64", "plain"): "157857f1c697cefe1886ac7fc2fffd96803d64ddf4ddd51611e474b1609f4c0c",
    ("fang1994-mss64", "short"): "9b47e4905cc3c424e759cc64dc99046d5e995b34b71db476820d6c8378720d85",
    ("fang1994-mss64", "seed7"): "013a9ab5852efae15dc7bee6b5d07f0faded622461ba2e2795f9522b09ff6f80",
    (
        "fang1994-mss64-alone",
        "plain",
    ): "e9076e5d1933e65b2d4372884b24df23359f05754bea984faf6f49c5e1cccc33",
    (
        "fang1994-mss64-alone",
        "short",
    ): "2f5d63f506b30ba8a1657f0aa567142cee5d3dc5bcf428244806783b36287630",
    (
        "fang1994-mss64-alone",
        "seed7",
    ): "5d043fa5f3305360db578dfdbdb8a6f4abbac958452a160c63fec9993b9b272b",
    ("goyal1998-fifo", "plain"): "2d13709ccd043ce044580527fa1fcde1bcd8ee0c612e5d50a859e92314239d86",
    ("goyal1998-fifo", "short"): "bf0722811f9f884c94d67a4e7872b1ee5f852cf3628bcc45bfe33e7b16cfe89f",
    ("goyal1998-fifo", "seed7"): "b7f289ba63d5275e378f7def354715914d0b887f13243d195b3897b14bea9ff2",
    ("goyal1998-fig3", "plain"): "96404454c86f8d0d6bc40db74ca8470ef857df42a455417f1762647608344364",
    ("goyal1998-fig3", "short"): "f29702fc459a800063bfbf8b3fd080b258e1adcb0883dd597aee691a6aa68749",
    ("goyal1998-fig3", "seed7"): "1578fce26a38e00b25bc17937ccbc776e472cdfcf690631f98dda9c6fb566693",
    (
        "goyal1998-merge",
        "plain",
    ): "11d554e1bbfe064f03c9fa48c0b8dabe2e3942f095a225a6de7d6e16f633b6bc",
    (
        "goyal1998-merge",
        "short",
    ): "fc3a41f9ee0392a5f2ec1fc71f89849adf428610cd7baaef848e2e72822c1eed",
    (
        "goyal1998-merge",
        "seed7",
    ): "6d50dbbe57ba45bab1fc060ec378e5149738ff89fb894b6b7881c9da899dd1c9",
    (
        "kalyanaraman1996-table1",
        "plain",
    ): "d22f8e4bb1fa11f7791ebd25e33ce6940e49acf6bb385efc60f1de7a602b7d25",
    (
        "kalyanaraman1996-table1",
        "short",
    ): "851414a949446cf8bbd6b48095fe596121bb4c70e3e324dd1d843417eb386246",
    (
        "kalyanaraman1996-table1",
        "seed7",
    ): "a97640e9dd47e71f7d7b381022227de5e3d13b1128892edfa417bf748e3ce517",
    (
        "kalyanaraman1996-table2",
        "plain",
    ): "c2c5b5211f3deda14de9db800b73449d1cec09333a538d1d070f510447307af0",
    (
        "kalyanaraman1996-table2",
        "short",
    ): "ca7af28662be58fae8de39a615e1d74f532b9aa9bdc91a570dd91002b3342eaf",
    (
        "kalyanaraman1996-table2",
        "seed7",
    ): "e1fda3cbfe80f53249cc6ac22ead1665b9bf4c336c57ebfecae25992180c6e77",
    (
        "kalyanaraman1996-table4",
        "plain",
    ): "8d1ffdb164d350fa07dd1222979b85075a8c33ec1c19aba2ffc2bb36b76cad2e",
    (
        "kalyanaraman1996-table4",
        "short",
    ): "8a4a8d354a2dd3f3b1c7d376885920b1a9c1c252f882647bc9bda13c449a3fbc",
    (
        "kalyanaraman1996-table4",
        "seed7",
    ): "80137ff2a1a959b53b171726e5b5c75bd4432ec8cae059e6cb62e2fc7ef0e0e9",
    (
        "vbr-priority-5tcp",
        "plain",
    ): "a8963857208f79901f80589b0654f42059a457924a14b3e504782c5aa468fdc4",
    (
        "vbr-priority-5tcp",
        "short",
    ): "53bcff066b3444885fec0e367db177538309ecc627cd81949f95ecafd3756764",
    (
        "vbr-priority-5tcp",
        "seed7",
    ): "833d1f8080f0da0d8fc0a56076633111c5d0310c6914f2ee1223848df5fb28fd",
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
