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
    ): "5070507244effd8e65b00f761646ce4f68487c85c54a8f6b8f47cf6a5b4f4c24",
    (
        "an1997-n10-10ms",
        "short",
    ): "b2b9122357c30a65d48aaaed06a0f26f4e48cccd22ee1eed1000162dc1e891a5",
    (
        "an1997-n10-10ms",
        "seed7",
    ): "f21e548d7fec3de88474fd13c2c816687cc6dd41703f38f89d7e46d58dad7981",
    (
        "an1997-n2-100ms",
        "plain",
    ): "062798f8f8aacf3b44a83cedac4263a27c14332768d70b29a94c006c722f19ca",
    (
        "an1997-n2-100ms",
        "short",
    ): "fb3100a40c46aaacb131424708b30c1bba253884533192289990e8a7b18b2bfa",
    (
        "an1997-n2-100ms",
        "seed7",
    ): "f4b0ffcc8ebb1eb5534b75588b7cdab3098f36843f50ec750b3c7ee0847c029f",
    ("an1997-n2-10ms", "plain"): "322c8e9ff1a9f4d0c00e82d8d85befae3c91b445e312f5f87d9328a45105d4d6",
    ("an1997-n2-10ms", "short"): "41a68e36531b022dda42eac1ff301f44dfd8a498a5794f2c7af44676ca9b9b64",
    ("an1997-n2-10ms", "seed7"): "46927a7ebccbda378710c01a6adbb357df5804d193dad0312774d09ff6192297",
    (
        "an1997-n2-buffer1500",
        "plain",
    ): "2eb14cb5c313db09c3e8f24a9bcfc9f09ad5a47efe01474e4c35b9b150e0517c",
    (
        "an1997-n2-buffer1500",
        "short",
    ): "df614b2d8ef40523635cbb474372718c565b6b93c9c4423122d4e3b0b755beb9",
    (
        "an1997-n2-buffer1500",
        "seed7",
    ): "d571f2a8fd13e8d519d2d22e4bee9627a62fa949db2342fd975a94844d78d53d",
    ("an1997-n5-10ms", "plain"): "23db9c5dba8e2a32981aababfb3ac424df50ea4c27198beda27098e4bc79012e",
    ("an1997-n5-10ms", "short"): "bc0a5a54992e24d9711ac94323a22c65141163756cbf2f1b137c474c2a0549bd",
    ("an1997-n5-10ms", "seed7"): "e792f792036077eea4d1bfd8f4334cc7b6f3c6ab6b547e0eec29a414e994ab61",
    (
        "bench-parking-lot",
        "plain",
    ): "bef28906fcf58b42068939de844b56ec2800b7c3c578a8a3ce52a3fb2d5aa7a3",
    (
        "bench-parking-lot",
        "short",
    ): "19f31a944d671c1330e3a914aa81944e432d2bb225dd66e3c1d01eee11b73d4f",
    (
        "bench-parking-lot",
        "seed7",
    ): "a96df5576ef71365d0aea3552471c77433bbef646782d899d9923aabe09d3596",
    (
        "bench-parking-lot-vbr",
        "plain",
    ): "57216e817cbebd25045c0d050379f8f11a206e4d659b459617c6d368eb0c902e",
    (
        "bench-parking-lot-vbr",
        "short",
    ): "51b53d8f9a9f3f32bd651a02fc07ee528685ef1837892ccb49b71005356a3ae9",
    (
        "bench-parking-lot-vbr",
        "seed7",
    ): "6dbc41c667472220b93ce89961011327b662b086d712473c98a2fa9e31945afc",
    (
        "cheon1998-epd-1500",
        "plain",
    ): "84cd91d20f5ed3d33a36972044414986bfe1539972c7b791a15cf60a409e4eab",
    (
        "cheon1998-epd-1500",
        "short",
    ): "2702bb2eee7ac0164abf50892a1c8fe26891af4fb1cf505337e6a811eaa9b1e4",
    (
        "cheon1998-epd-1500",
        "seed7",
    ): "56aec5b9303d3d684a40a1bb217910ee683a394b4524f1db29b12a6c9fd03ba3",
    (
        "cheon1998-epd-500",
        "plain",
    ): "af196a73090d79ba815b8fd761fb5283e6a24eb9240e4cf8c4fdc9f1a6af63de",
    (
        "cheon1998-epd-500",
        "short",
    ): "afae495c8bfc368deb4b89401dd4f634ce6122d0d24da841b7898d32a59bd5b8",
    (
        "cheon1998-epd-500",
        "seed7",
    ): "81e9298b4c5d997e9ce5ae53939900d6e3aefec81bef9cd403f9d046d2c6e4aa",
    (
        "cheon1998-espd-1500",
        "plain",
    ): "360fc3952007047ed40062bb03c13866e280e3a8a5480cf1a42b074848dc2ce4",
    (
        "cheon1998-espd-1500",
        "short",
    ): "1679e0c993af1da1a192f19f82e5026d862de19cbac3f9f2addcf48a9cbe93e8",
    (
        "cheon1998-espd-1500",
        "seed7",
    ): "1c97be15d361988663a812ee1e0fed837c59d3ba4f30f445ac31559831b67081",
    (
        "cheon1998-espd-500",
        "plain",
    ): "52d0ab091467742f67feea27c9cea031480009c837bb462c18f2da82b37d495f",
    (
        "cheon1998-espd-500",
        "short",
    ): "3f2252d7414f9d968a9ca4f9c34d0c02c956d8f72a9e82c75a2b24d9f2ef6527",
    (
        "cheon1998-espd-500",
        "seed7",
    ): "4961cb6fa93214b638664176807bb177943206c0e6b0ba29fed2f873290c21d9",
    ("fang1994-an2", "plain"): "0d77cea9adcb5757d56cbeff77fa659f6143bc4a28d4944d8a220334a5191b9a",
    ("fang1994-an2", "short"): "b49b7950bd5f5d521053fdcd50cfb250e6cbda6871c9947a61066655af7020ec",
    ("fang1994-an2", "seed7"): "01f0480ecf6f898b8fc0449ff687885805a1d7bea3fca41f96e72ad466baf27d",
    (
        "fang1994-an2-n1",
        "plain",
    ): "d7a9008791a3ae4eaab76bf67a64ce17627cc9794a4e46c2e0091b26d6b748fe",
    (
        "fang1994-an2-n1",
        "short",
    ): "1ac085a596cd507d09fd2db2a5c45ea3f3c19f4717caa945b7d9effbaf91930f",
    (
        "fang1994-an2-n1",
        "seed7",
    ): "a77d40914613901624e727debc0d4d96bd3226044680d7f6c35dd0fb2d10663f",
    (
        "fang1994-an2-n2",
        "plain",
    ): "cac47031e1853fdf952300d263170a003743b2a85d4913dfa0a53653abac499f",
    (
        "fang1994-an2-n2",
        "short",
    ): "4532875b6f55ef5afea50861c91568319b3353d8cfcf0548bcea8a80b0fbf403",
    (
        "fang1994-an2-n2",
        "seed7",
    ): "903a79bdf6eab7325e84d6a92dec91f697db1733d1b4151d1997c661bf146e49",
    (
        "fang1994-an2-n3",
        "plain",
    ): "6c5ab8c364f8277a3077036379f1213ff3891c7cf4ef1e37eee6bdad8b2306de",
    (
        "fang1994-an2-n3",
        "short",
    ): "edfabe04a0957491505f2938f22fd99e9761c3f05b7970ece3ece702afb66ad3",
    (
        "fang1994-an2-n3",
        "seed7",
    ): "82a390f38edd0b89bed5348b92c0ac0fddfe85ab70cf45ef5022ccf6da6612aa",
    (
        "fang1994-an2-n4",
        "plain",
    ): "27eb374fd1bf0a0254ae20dd1aa1cc93d2eb13ff861b382be8b6a669093f16b4",
    (
        "fang1994-an2-n4",
        "short",
    ): "5e4c0735d48936425d34e38ee1468957c4ffb45e64cc591a9ac18b66c69eda2b",
    (
        "fang1994-an2-n4",
        "seed7",
    ): "20e0f30a5d6b86680760324e4ef997a53944eeb72c28f9391d3b52ddd3f89373",
    (
        "fang1994-an2-n5",
        "plain",
    ): "2ec917b6f8f82423d7f72c8bd96dd43f560db7b017d3e70beedda0f126ce4f74",
    (
        "fang1994-an2-n5",
        "short",
    ): "3606eee191fd4476e3420dee55a03378802d85ab6df99fc4cfa6517d4c826051",
    (
        "fang1994-an2-n5",
        "seed7",
    ): "b55aacab7267f1e64aded907bc59a64587975e3af975e413cb402bed1513e49b",
    (
        "fang1994-an2-n6",
        "plain",
    ): "35b8caddb5758f7213dcbe308f5bd7aebc0be68d14e2bc72522453eb14706fb3",
    (
        "fang1994-an2-n6",
        "short",
    ): "d3acb90480daf5d372768c3a116aa449c1fbc52fd188164e3e71dd86b77b437f",
    (
        "fang1994-an2-n6",
        "seed7",
    ): "7d897e315c7e362d69ff9b62057310c7f281f7708ae86ff6fe414c26140fb7ca",
    (
        "fang1994-cell-drop",
        "plain",
    ): "fbd37120a6f2ba8798e88ad8ec8f03ed01c6fde19100bf6d693c9c5abfe5dd53",
    (
        "fang1994-cell-drop",
        "short",
    ): "9af9306a5b57fff45ac5c9266815d7876d0ee6f9d181dab30227a6c8369d4da3",
    (
        "fang1994-cell-drop",
        "seed7",
    ): "8ff7070485d07d4a50ea92306e52e0a2006ddf266c2bf40e0635961ff1f6eb38",
    (
        "fang1994-cell-drop-n1",
        "plain",
    ): "2b5bbba6109ff4a6326cb0fbb475bbdbdf5667e2ca16fa02b84e824e2493c4ef",
    (
        "fang1994-cell-drop-n1",
        "short",
    ): "cc1f6c525aa1d1da92be55223a9737961294a027f3d0fc23b601ded3bd26ee64",
    (
        "fang1994-cell-drop-n1",
        "seed7",
    ): "af3a48cb90e272aeea628f05c4c198d734759b501b3767e3d9a71f8475bf7100",
    (
        "fang1994-cell-drop-n2",
        "plain",
    ): "f038ca965ef8ccf9868e8290672fc1bca67903319b20ff32c2e533f52318ec68",
    (
        "fang1994-cell-drop-n2",
        "short",
    ): "94c68b2a728bf6418e2831a55414b8a85005a8c7c158d4aa60e16d73dc6270bf",
    (
        "fang1994-cell-drop-n2",
        "seed7",
    ): "1cdded1a24a683e41e5313a5dd7da6661473e21f3acc3950843074fb39c42acb",
    (
        "fang1994-cell-drop-n3",
        "plain",
    ): "8b92da867f755021eae15c99ed2c26b4f5864546c0f1f364462407072e807362",
    (
        "fang1994-cell-drop-n3",
        "short",
    ): "ccdd0dc837e47a84736fc288c4c0af2c6407e53a0ede165cd4e74a9912f0dcfa",
    (
        "fang1994-cell-drop-n3",
        "seed7",
    ): "0ff4657d47f0f4fb27ca772734b6db96ea6c4cdd0c718339a6f5a0d5e106900b",
    (
        "fang1994-cell-drop-n4",
        "plain",
    ): "60d3199fdba6059a9ed7a6a4b826887a72ee281d9d35bb409504df9f662e68f8",
    (
        "fang1994-cell-drop-n4",
        "short",
    ): "f31689343ecdb603db62e086c2c9b8cc5b4ff0a8aabfb0bb8f72f41b96cc96b5",
    (
        "fang1994-cell-drop-n4",
        "seed7",
    ): "e900671c0e5e26b35777ede28c4f72cffb8085c780ca4c3252cecff2e069843e",
    (
        "fang1994-cell-drop-n5",
        "plain",
    ): "9e2a430a3ed19f7ac77eda1d56e2703efacd0a50b47c0dae2979f82af8cad94f",
    (
        "fang1994-cell-drop-n5",
        "short",
    ): "a01926402f7c4d5bc030b06ec262c26a7e2fa7d96b005057343de77325f4ab6c",
    (
        "fang1994-cell-drop-n5",
        "seed7",
    ): "e5dbf09538ddd1648f83bef45bd4829d1bd8335ec3927cf035e83ada9eb8470b",
    (
        "fang1994-cell-drop-n6",
        "plain",
    ): "45be6aa40523750ef43355f50dbc2d4a7f8d618d3875b866fc81cf2c41bb233e",
    (
        "fang1994-cell-drop-n6",
        "short",
    ): "83f9c19473a064790380e442823531bb516880c9bd40e617411d4fc0013ab120",
    (
        "fang1994-cell-drop-n6",
        "seed7",
    ): "a3723c8da1edf29bd316eff1da3328997a4612da5b1eb1325c465c91b7ca13f2",
    ("fang1994-mss64", "plain"): "ff9714f99caeaf9a4b57d9ec0e6c68a8883e329c35c1775f7f397eb1e4c7d0f7",
    ("fang1994-mss64", "short"): "2e54d7890807b5f1f6c9c85796a3ff5af30195a139b6e446b22a26185db1db03",
    ("fang1994-mss64", "seed7"): "c23fb351bb7ea689b698718aed22f55bb8166bd9eef8d35d70104fe8c6d050ad",
    (
        "fang1994-mss64-alone",
        "plain",
    ): "c96765187250adf9d8da303c54edf94a8ec580e84146316a160409dbb984df34",
    (
        "fang1994-mss64-alone",
        "short",
    ): "fec850dcf7c50ae4797338711fc06d69738ec8f737cf8362df29ad80affa2449",
    (
        "fang1994-mss64-alone",
        "seed7",
    ): "b6c365e6e25e7be6fc55bd3ac9702374afb199ff4484dbeb99b9046f310aa068",
    ("goyal1998-fifo", "plain"): "52495772a9ab08f57093af3488c83f557d5fe30897883fb1d0e814295982002d",
    ("goyal1998-fifo", "short"): "fdfa3217f842a02761f0fb55135e862bf0ce464bac6929984ed785b47ac24661",
    ("goyal1998-fifo", "seed7"): "4dd14644c678d48645bb952bc009973b2d0f32b18586e1bb3c02502fcd9d263f",
    ("goyal1998-fig3", "plain"): "10835f6545ede9ab6ca0248b77d2774d22f2a9b3a145037d9163e4fc91e54a48",
    ("goyal1998-fig3", "short"): "808f9bef614a77ebadd165e3269aaaf7a61b97405f88acfda5db9596a0ed9094",
    ("goyal1998-fig3", "seed7"): "f2b7862bfdadf70a866e941a3c3c30a8e41cbb4269a1f8dcf5af8002b4633963",
    (
        "goyal1998-merge",
        "plain",
    ): "519715f7d4675a7a58b65150af581805d09023f7db335a86e73420517ab246e7",
    (
        "goyal1998-merge",
        "short",
    ): "6b26570f9cdb52902bfe3b2aaa533ef3e98ca6b639b98577e5d0adab7c343d77",
    (
        "goyal1998-merge",
        "seed7",
    ): "9d89021f3eff1b8cf1252cdfe8d59cfd2ae36843198d1eb9886b7cd12c19581b",
    (
        "kalyanaraman1996-table1",
        "plain",
    ): "b388d6d2166378725f5dd8459b9e195acae0cae0744cb7f5f6cfb53bf38a13a5",
    (
        "kalyanaraman1996-table1",
        "short",
    ): "5f05a546902ee9270443a9b6b8dff0299cc6aed2dc426ba42fb4466b392471a7",
    (
        "kalyanaraman1996-table1",
        "seed7",
    ): "abb70ca388764e23f7d800a89d4ef412b07e848f43f296fe222c9c216afce0b5",
    (
        "kalyanaraman1996-table2",
        "plain",
    ): "81ecb112d5b1dcd7defcbc961cc9b4125840979b4528f4f864b2c1af575807fe",
    (
        "kalyanaraman1996-table2",
        "short",
    ): "88f306f5e50d440c0f7736267162fcd524d17a6dd85f9f7c4357be4c543f11fe",
    (
        "kalyanaraman1996-table2",
        "seed7",
    ): "c7989d111dd57d599133e879ad1a027e7dcd76c8e0cf348bc61e4b24ef1eaf70",
    (
        "kalyanaraman1996-table4",
        "plain",
    ): "cd798e781c07811c1dea4fcd3de5a92e2aeb21d5618e73abe4e9fc02a9b93d8b",
    (
        "kalyanaraman1996-table4",
        "short",
    ): "0f8ef4a00f7c7c8baf7a732e7cd9fef21466b28e4ffe79e6a9c50cbab4cd1b7f",
    (
        "kalyanaraman1996-table4",
        "seed7",
    ): "0c6ed6aae1641a0c446d00511fdb09e2eeed109409eec9759e312bb24d950572",
    (
        "vbr-priority-5tcp",
        "plain",
    ): "2aacdd916de719318bc0f56a87f25d62aa433500e51b57c8bb182a3dd63a4484",
    (
        "vbr-priority-5tcp",
        "short",
    ): "1fed1b66aec724af3ab40ad3387471a9c8b643960caa700dc858b420007fb990",
    (
        "vbr-priority-5tcp",
        "seed7",
    ): "a6905492f315ffaf24f3d15a8155cd302a0659449e1b98880de4608fd3e11618",
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
