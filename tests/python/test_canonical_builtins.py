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
    ): "613fba27efa89192e7c1d4d46c58c6b8471f2fbe79de3fd378cfc7b466491d02",
    (
        "an1997-n10-10ms",
        "short",
    ): "f870dcddf950e2e7abc94da4fe2bfac852fb8dc2c218a53dd6a9a981bfe41d63",
    (
        "an1997-n10-10ms",
        "seed7",
    ): "56b0c9462191a7e80e588d6fd3906f67dd5e8f76ede7d73f42ab7a100758b95f",
    (
        "an1997-n2-100ms",
        "plain",
    ): "6f1116e7a10ff6f001105971a3c6dcfc98a010a84b990f5b02324b3507892fc9",
    (
        "an1997-n2-100ms",
        "short",
    ): "291e1c5f680a80f6337f51c28fe1ba1e4f8d5e3dc027717a9d8304d9af693ec0",
    (
        "an1997-n2-100ms",
        "seed7",
    ): "b44ce56226de8eca89a5af1bdb2c7a43cc2fb94edb7ef8feab6cd03b402af57a",
    ("an1997-n2-10ms", "plain"): "abfcb7bb492aee0fe1725b0cbec9c44bc37898321697eda05ba569f2ab069fa4",
    ("an1997-n2-10ms", "short"): "c1bcc5b93103c1d1ca2810e36c011ee257997d9c96aa6650df65baa84d9d1c4c",
    ("an1997-n2-10ms", "seed7"): "4b4f918851d193368e606135be7df6f5295bedfcc2845c750b0297246de39249",
    (
        "an1997-n2-buffer1500",
        "plain",
    ): "242d0e642cf768f0922e5a3f22d0689b4ba9e5e983678d70b2162cf1558ccb60",
    (
        "an1997-n2-buffer1500",
        "short",
    ): "449322e8850c95915572ea85286e35f241d53d90252aa942f06b052f495c693d",
    (
        "an1997-n2-buffer1500",
        "seed7",
    ): "9162441d30051fd8c324908ba17c53acaf122ffdbd5c917a7d448e4dcc5a8696",
    ("an1997-n5-10ms", "plain"): "ce964bfa30e6b2c5f3e691ca9bdd0fa549a971ac4aea840d8b511a0b85444f42",
    ("an1997-n5-10ms", "short"): "510bbac3ee1a9f1c4516660dc44340fbee60f0804dc6d3efb6fce90f71bbe0f6",
    ("an1997-n5-10ms", "seed7"): "75dfababc6c884843958bc640497c67589674994df2e78a4c467528df5f6820b",
    (
        "bench-parking-lot",
        "plain",
    ): "970d884a02ff87658441d24e1015537c4171b8b915ab19390302aabcf924eed4",
    (
        "bench-parking-lot",
        "short",
    ): "f2bd32861f1338df411891d3f13ee4b41d23509c388499901567606bdde34ae6",
    (
        "bench-parking-lot",
        "seed7",
    ): "006142e92d3dfc5e2d778472054c4ba32789d9f0267e3fc0e1b175e7e10719b1",
    (
        "bench-parking-lot-vbr",
        "plain",
    ): "960e14ea1ec9565a6290801aea8ac85d3227b53441c4af226ee1e9fc290fb18f",
    (
        "bench-parking-lot-vbr",
        "short",
    ): "e9aa6011bf9f85907c8fe0c4964e46de01b1fe71660c11e88dbafd8f727295ea",
    (
        "bench-parking-lot-vbr",
        "seed7",
    ): "2ac26a94515d01b18612cdf6539214d84b03453e49938adf1cc7eb2c2523cae7",
    (
        "cheon1998-epd-1500",
        "plain",
    ): "65da93ee0e317e706f0078c7e5e2ccd202ef2617ddcd26aef795eed615013dee",
    (
        "cheon1998-epd-1500",
        "short",
    ): "18d459dd0c5cff34c9000ff69e7b05356414f47fb1f904ae2dcd295f46b7b136",
    (
        "cheon1998-epd-1500",
        "seed7",
    ): "3e3bdfc008b59eb7306f94e0cbbe9cd259d1fb8298af1b86ad9f537a0592ae78",
    (
        "cheon1998-epd-500",
        "plain",
    ): "2475b9142722d3ba18c3db2a82530cf625aee4be4b8aae3f3f131883800d1c17",
    (
        "cheon1998-epd-500",
        "short",
    ): "987ad9006c98b13520b3bbcac0ca633ca2631f1d1bddbf9ceaaec1c7b3676b62",
    (
        "cheon1998-epd-500",
        "seed7",
    ): "8b16b44327d3be5bd0ea5a7a49bcce4cf751b9059128504111b20bdd1a3092d8",
    (
        "cheon1998-espd-1500",
        "plain",
    ): "22190921a687c832dfe88659c0b95bde73df8d7276c1c0676bcfa61cbf872077",
    (
        "cheon1998-espd-1500",
        "short",
    ): "27111d38ee45dca2f26ce5db0107a5771b25a9065e9dd36a4551d2fc3cd61442",
    (
        "cheon1998-espd-1500",
        "seed7",
    ): "cd21fb4f2130ca5ef82c59714f15ac28d391944ecab7307bb8f44cae0d1ecf38",
    (
        "cheon1998-espd-500",
        "plain",
    ): "f20897f15a7ce0eddaecb8e11d88192ea12992b813dfa27512de5301782bb4b0",
    (
        "cheon1998-espd-500",
        "short",
    ): "eb7189e623abddfb458fe00da870464e5e8caa7564472ab41fb4539650450f75",
    (
        "cheon1998-espd-500",
        "seed7",
    ): "8599f2dd134452657c0694c865113052e06d6d8034b9c27c68d35244535e7c23",
    ("fang1994-an2", "plain"): "78bd6f8a60cec5974b1fd85da788ed8ec42db73b548559b964ff1a825e1057e7",
    ("fang1994-an2", "short"): "cc5e1261e4a41f92d0aea5ef5168a5971344c9674d43f319aa7e17187f1400b5",
    ("fang1994-an2", "seed7"): "0b7a0d4f6b11c81cb2a280cbe577fce75fe9925162973e7079db2c29e75da328",
    (
        "fang1994-an2-n1",
        "plain",
    ): "7dc622ba28da47e2825fef83768551f3a38f6ed94c590fda983bcfb2e3cfdc0b",
    (
        "fang1994-an2-n1",
        "short",
    ): "4f37a3cc164d4f871cf4d8b8810dc08a23923c07629ef11720d23588e4b0d2d5",
    (
        "fang1994-an2-n1",
        "seed7",
    ): "22d06da661f6fecaa4a769fb94c46609869a0458dfd66bfb9103206f9e7a8052",
    (
        "fang1994-an2-n2",
        "plain",
    ): "db13ff0a529077bc3456fe0c904d5184647ef39bd9b37cfad6777a01c80677cb",
    (
        "fang1994-an2-n2",
        "short",
    ): "51e3b653881b688962409c2b93cf27ae3f3be457a7fef2209e9cde6d89da9736",
    (
        "fang1994-an2-n2",
        "seed7",
    ): "56d6f7fda691560f614929cc1ddb7eae262f8137f505abef7121a4034875d44f",
    (
        "fang1994-an2-n3",
        "plain",
    ): "7af220654cb87e374f96c306b41065dc1817e29ff63d4c47b76947b3b4478ef9",
    (
        "fang1994-an2-n3",
        "short",
    ): "caa4e5f7b0fb047646cf9fccea3023bf87e0b2a80387585d9125b520f409ef31",
    (
        "fang1994-an2-n3",
        "seed7",
    ): "60abb805a558d541360c6d555ced7a112116eef3492a815355f6d645259662c5",
    (
        "fang1994-an2-n4",
        "plain",
    ): "8416f53c78d11e237b6e546de2a6f201c25d319c6c4e998b49e65f39b389743f",
    (
        "fang1994-an2-n4",
        "short",
    ): "1a036d9df69c242659b535b1d8ccb2d4e0f7ff434fa597df07220b3890d89ab8",
    (
        "fang1994-an2-n4",
        "seed7",
    ): "fe06479b99e3daae0f627b76362cf6f01983526a45872ff69f8dc6c6f41c1622",
    (
        "fang1994-an2-n5",
        "plain",
    ): "fe7a8a7c54ec9fbd4dea72e8a0ba6d15845e16820f80ec7702f26a6a63fc668b",
    (
        "fang1994-an2-n5",
        "short",
    ): "7029bb978cd039f822b632d8535bbfddf4cb8b2cabfabab44c0913099358aef5",
    (
        "fang1994-an2-n5",
        "seed7",
    ): "e6ca0e1e04cdbb82a55517efb3ba5f4808d4563a0f062cdb0cbfc16d2b26609c",
    (
        "fang1994-an2-n6",
        "plain",
    ): "5e0e772b0ec987cca82756b69e4cab5c4b3ff310d7d81fbdc223efa9253e84b8",
    (
        "fang1994-an2-n6",
        "short",
    ): "d1671afd8d52439466b9f14b8a4fe421b2105f9bbd13ac6a0138e67371c21747",
    (
        "fang1994-an2-n6",
        "seed7",
    ): "6caa597fa58022fce3b58fd4b9d72f61b4f77fc628f551bbc4638434917ab0c0",
    (
        "fang1994-cell-drop",
        "plain",
    ): "eb3cf876e4594df0b39c09632da2bbd82b895a8a6aaf0b31c311f88ab957d5c7",
    (
        "fang1994-cell-drop",
        "short",
    ): "ff704ada278221f7090ecbb1368908a2d5def1ddc28f66834395edc113571a64",
    (
        "fang1994-cell-drop",
        "seed7",
    ): "c79409d2027b096fe6fa6d765880f0557edf170643afaecdd222ed2cf01c64dd",
    (
        "fang1994-cell-drop-n1",
        "plain",
    ): "496c9ef7d96dec3b28a6900b956748aa52785bda534869d9691904be4e7b7f79",
    (
        "fang1994-cell-drop-n1",
        "short",
    ): "e3936ed03cbef84b8efaadbf5527879a48bd595476a5b3de6bfb1569c1992f66",
    (
        "fang1994-cell-drop-n1",
        "seed7",
    ): "c8e0e91dd6da51c1f50c9895396f22c41beb5999bc32f0abd2919e3d391b5fea",
    (
        "fang1994-cell-drop-n2",
        "plain",
    ): "5167aabc5d66e1e4b1e470b71b664345510b54c70a80f82b7e796d1ae8a2614f",
    (
        "fang1994-cell-drop-n2",
        "short",
    ): "9119314e2fc6bd21f6cf64e3aae3a1c60d241b226c6e58f3953bb0c5a2f0e1a6",
    (
        "fang1994-cell-drop-n2",
        "seed7",
    ): "d2ca6446ac234eb03d00a10de08f364878f7cb2790d428ec24d7f510e155153a",
    (
        "fang1994-cell-drop-n3",
        "plain",
    ): "324e9ca23678aa1cdebd834bc0dfc8cb057ecc38de3c4fcf428b3572942faec3",
    (
        "fang1994-cell-drop-n3",
        "short",
    ): "ecbc186c30cea27f91bb1642750c10f648760426a6193c27742ed37303df5e6f",
    (
        "fang1994-cell-drop-n3",
        "seed7",
    ): "908786168f028462d5bec112cfeae457cd4690e8321a0479e7111583e95a40fd",
    (
        "fang1994-cell-drop-n4",
        "plain",
    ): "53da26c6bea212bfd167ad62b39573dfb1724ec39b1bd543b79720f6bbc57fc4",
    (
        "fang1994-cell-drop-n4",
        "short",
    ): "496881d90dd87a4d9a8f4b04c46450effeabfd71958c55beb382aa31a4b1a1f5",
    (
        "fang1994-cell-drop-n4",
        "seed7",
    ): "dd5b1499d1c9f1762ababf95261602046754e203a2be957efb4c578d58605f7c",
    (
        "fang1994-cell-drop-n5",
        "plain",
    ): "4f42b019e418c3052f91202b2fc85f7562268da115bb74964bc6e0782b1f8f79",
    (
        "fang1994-cell-drop-n5",
        "short",
    ): "1449e72c14bc4c92751f6f7428ca8d02f62ef8e82ce8097db3eb5a23efc53835",
    (
        "fang1994-cell-drop-n5",
        "seed7",
    ): "c16adb909de6a0870c916fab0e95bccf60bba3c5e028740952a9b3f30214f701",
    (
        "fang1994-cell-drop-n6",
        "plain",
    ): "025defb7a9352c430e50b918b347025383622fb78284f1c16caf71c0c7872d6f",
    (
        "fang1994-cell-drop-n6",
        "short",
    ): "b6803ce251f2f144a84eeffa599cf8e92f23a717c7ac661e1aec58f5be816a89",
    (
        "fang1994-cell-drop-n6",
        "seed7",
    ): "081946056ae4af7cc70f4028f82fc26d20373d49907654afd145957ea7d5f796",
    ("fang1994-mss64", "plain"): "1de679182a2d6094ea671abb43a4fe744cc8a42b508178ef3fb779fe3e198dbc",
    ("fang1994-mss64", "short"): "7e3e047771382d66e9934733fe52248c706a2484b76bf6fbf452062b6c00b1f2",
    ("fang1994-mss64", "seed7"): "5942e35d1fa6445c11978d2c6f69638d29b59a0d9a2fe283efeab29f616560ee",
    (
        "fang1994-mss64-alone",
        "plain",
    ): "1928a6ff6937a33d1a2ac3adb72647718b9813c60a3a1cd56f59a06c2c04e197",
    (
        "fang1994-mss64-alone",
        "short",
    ): "f691a229cc284fcf6432c361f7fcfe50f7d322d4a10902180a02dfe14ea3c415",
    (
        "fang1994-mss64-alone",
        "seed7",
    ): "9c79a50950358667a34891070ceadb4d122922aa6d603b9657caf9bb69361c0f",
    ("goyal1998-fifo", "plain"): "99eed8d4948628793d765898cd99adf459c1791c45d329daff680429d640c490",
    ("goyal1998-fifo", "short"): "f26c7957bebb5aaa8e5dcb50fd5cdc5c353fe93d1aedbc31300fd8a404d765a9",
    ("goyal1998-fifo", "seed7"): "c2c2f0b790755a085b3dfc10f5f18333222918871d89515a6d86ab2dbe6c10f7",
    ("goyal1998-fig3", "plain"): "cd25b973ed77e8af11bf3d956819b10dfbdb5e810263eac37fcb126df79a2d09",
    ("goyal1998-fig3", "short"): "56063bbdaa63d6d3b03e24d03f68b5ebf3fe187a9f6dc5ba864b707ada6aba6c",
    ("goyal1998-fig3", "seed7"): "c32a8752d2ec40db44e42265f0d272ca8c3176fa63aeee988d14a942a2b0ed4d",
    (
        "goyal1998-merge",
        "plain",
    ): "e34b205801a26f4e754260f0daaa2e1975c39dcf95779346f36d9fed21dfe111",
    (
        "goyal1998-merge",
        "short",
    ): "0c992fd45f01c2e4db9626dd728bd297f9d729b0031a5d37b94d49d062fb6100",
    (
        "goyal1998-merge",
        "seed7",
    ): "a6199ea11f959da47d637f39e7198ce1f06c48f28ef758ed0b2c5dae61c56bda",
    (
        "kalyanaraman1996-table1",
        "plain",
    ): "c08c9e30cea9e057c57c6dd450a9487dd12c0fcaf8c45e56510554931c04b7e5",
    (
        "kalyanaraman1996-table1",
        "short",
    ): "bc6d82a23ada48f4c5b5ae3f6e5bf4e349c6470eb18220b623eec790dc80ffbe",
    (
        "kalyanaraman1996-table1",
        "seed7",
    ): "d7cf39e7012accb3960d71e5cfff6c2dea7374628f13160dbea3218285dca786",
    (
        "kalyanaraman1996-table2",
        "plain",
    ): "d4c5683b948ebf1b80d8be7e91ef051d666994deeea0b522c32f67c8d99e6d12",
    (
        "kalyanaraman1996-table2",
        "short",
    ): "fb73781d901644dbc94a65f2d82f1f6f143883500fcd5bad16544d790d0ea603",
    (
        "kalyanaraman1996-table2",
        "seed7",
    ): "d44eb438f9039ae4ae7a4f7c6df4b9a5089e9c4f386294ffcf91eecfe13000d5",
    (
        "kalyanaraman1996-table4",
        "plain",
    ): "35638a3513b0e93662ad21367fb6bfccf48f7180bc7db2e192d666b2f09afbb5",
    (
        "kalyanaraman1996-table4",
        "short",
    ): "99bd69caadfad62b4343b9c433db89db26ec07331d3d56881cdb1e31d11d196a",
    (
        "kalyanaraman1996-table4",
        "seed7",
    ): "6057a93203932a57c7ecbdddf91468eaf6d451a763e578ffe819d3dd8b5ac137",
    (
        "vbr-priority-5tcp",
        "plain",
    ): "b6fae6a6fe4822b2c2fc3bee31903fe861d371dced0a3a54404531b0347ab167",
    (
        "vbr-priority-5tcp",
        "short",
    ): "ac608ba2ba50148602950b6b6ccd0370592aa2f3bce7e7639a70ec83d94352af",
    (
        "vbr-priority-5tcp",
        "seed7",
    ): "9744adb9c817af1634787f7fd62a5858fe4d95a66604077209c647c0d2d90d74",
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
