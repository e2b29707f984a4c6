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
    ): "7e2d284848ae6e945a4dae6a983f902bc2f7c760650143cbfdaf543e5e67a4a5",
    (
        "an1997-n10-10ms",
        "short",
    ): "53cdaa24b7c9b68f220ad03b3d3f0e9bb544ec053e599e0a53ae35558c51677f",
    (
        "an1997-n10-10ms",
        "seed7",
    ): "86b9631cf9a63b29c5238c53fb4a3153990d0402a55ecb7b135aaefbe3b8ab56",
    (
        "an1997-n2-100ms",
        "plain",
    ): "1a7a150cdc9d86fc707698cedaf1669a8379478652b272aca17317f004ebe9f1",
    (
        "an1997-n2-100ms",
        "short",
    ): "614a43713f57ecfef4ee356570854b1accb8f5b3633374a07f4eb2519ca94617",
    (
        "an1997-n2-100ms",
        "seed7",
    ): "ddfa6f7a80de9cdee82639a91cb19397e8056d60c9a9fd49c3c8d8e9f069ce12",
    ("an1997-n2-10ms", "plain"): "f070b4bd8f056e6e290e0d3a8c6bfb9b939e780442b220ba0d45437d5e6b6daa",
    ("an1997-n2-10ms", "short"): "939e7f6d95e1c79badd0b1322d3d629d44d2ffa27ec4209cd1968313baffd36a",
    ("an1997-n2-10ms", "seed7"): "6e64031287b69102c52658b9e7bc6eb0f1248ba721f915454d676b62b0f8ab04",
    (
        "an1997-n2-buffer1500",
        "plain",
    ): "0e3fbb9023918545276ca92fb769800580c4b56fdcc0cce92d081b59ce20ea80",
    (
        "an1997-n2-buffer1500",
        "short",
    ): "0b0ee47530044404698918c7ee81b47251080b46400a836bb6c2f53ccbbdc24b",
    (
        "an1997-n2-buffer1500",
        "seed7",
    ): "4e156a75cbeb69294917e69bb747f4472a172f2baae9fc5d8c1f1fb066f81196",
    ("an1997-n5-10ms", "plain"): "2e1e41aa140876c0b15b8f50e0a462c4eb82587cb6d2d095b20db3459506b82f",
    ("an1997-n5-10ms", "short"): "3df0e1b754403d3be4fe071c7a3629a2d9d1b3f849de0f4b4d95f6920b313297",
    ("an1997-n5-10ms", "seed7"): "6e948d08e2be97dfa815ef035dd6cce91453d7a40cb222c35e684e252e273170",
    (
        "bench-parking-lot",
        "plain",
    ): "c72ed91943314df3ce2abc56632aed7dea0d984c929dcfeb5927452bc05c2075",
    (
        "bench-parking-lot",
        "short",
    ): "b696a88b2e0d6d857ab73b872cc5269b8461e913d0ca2a768bc84e9e88c589c2",
    (
        "bench-parking-lot",
        "seed7",
    ): "94cfb3096e22c2c4f40f2b248b8a39a69353d92268c6ef9b12f2a9837f357d36",
    (
        "bench-parking-lot-vbr",
        "plain",
    ): "9e193b3a01f50bf32def97f307cbfa37e4a7098197c582ce4155dbf241e98d61",
    (
        "bench-parking-lot-vbr",
        "short",
    ): "92f5dc6a2c52a7c6b72b807403e3d70b04fdc6918d62db5c00d9564140ddf088",
    (
        "bench-parking-lot-vbr",
        "seed7",
    ): "041a3d5b7cddfca067333e39e11de2635d1ff21db3dd017c94b685dc421b3da1",
    (
        "cheon1998-epd-1500",
        "plain",
    ): "705d196a3304a57f5f8ef80436dc20df330ee80c652713bfad7d778f1d3b9249",
    (
        "cheon1998-epd-1500",
        "short",
    ): "bd16e9074d91714519eb4006db62fc174ec2a43e68497cfd4f2681d61755d59a",
    (
        "cheon1998-epd-1500",
        "seed7",
    ): "8e9fd3e068031a13ff47e6594bd1eff0ef9a21270a2559d13694e67c34cdd491",
    (
        "cheon1998-epd-500",
        "plain",
    ): "06044f210fdd4cfe1d259c252d875440d5b6b8358a4a550a448749ee43a33be6",
    (
        "cheon1998-epd-500",
        "short",
    ): "505f606fa1c9f083ea178a206ddc685fab2e55989a55aaa803b91c892b1518c4",
    (
        "cheon1998-epd-500",
        "seed7",
    ): "6478c7c8ac336c31bc07fd90f05181edc780b50af44c7e22b87d2358645f97a2",
    (
        "cheon1998-espd-1500",
        "plain",
    ): "a606c04da457e2dee56262df6a3eac91925756fe115caa9e40c3db1810340aeb",
    (
        "cheon1998-espd-1500",
        "short",
    ): "32e9939945786380e5dc6e9cda65332d9b64844034c5ded9db5a41766f651b4e",
    (
        "cheon1998-espd-1500",
        "seed7",
    ): "1e760cd3fb0fc858c429ac4439768787d6f4a6aba38cf39f888653233d04bfe9",
    (
        "cheon1998-espd-500",
        "plain",
    ): "2060f2b2fb5076a11940ae95ea5ce38d52d3de67d9c9459d5d55b80075a982cd",
    (
        "cheon1998-espd-500",
        "short",
    ): "34212ff9a850d13557ab052f068106b3a0297bb413214f7f6514a4a0ae0b546d",
    (
        "cheon1998-espd-500",
        "seed7",
    ): "317a177936eca2feef89bef178505e74787f412feccf8d1fa44264ba85c2763c",
    ("fang1994-an2", "plain"): "a1fe90ef9506b524db035439a74fecb2880759b73bbc3ed794846c2d5e89df71",
    ("fang1994-an2", "short"): "304de98ed65ada049724d9fd68aa0f9f4f5bea6d234c7a6e367c48a77e620450",
    ("fang1994-an2", "seed7"): "958d39c43cf05c7b7e406fdb6194dff6f996938e6e3dac09d531a14512c74d69",
    (
        "fang1994-an2-n1",
        "plain",
    ): "e793974f5c4a4a309f06edad234418c5a4d3efa2bc4bff3f97021094fb8bdf2e",
    (
        "fang1994-an2-n1",
        "short",
    ): "7840f1028d0553b62690fe4f9de352470267f5a8d1649208612f76b1ea2b6816",
    (
        "fang1994-an2-n1",
        "seed7",
    ): "456acffa1728f54ba7f9760dae2808ed3963ea215a86ac3bdb467edd0d9ab3e9",
    (
        "fang1994-an2-n2",
        "plain",
    ): "b368bd4468418651104abac5d1e903693136552079ad9377d7ca17278a347de0",
    (
        "fang1994-an2-n2",
        "short",
    ): "97f0794e2fb16af0b5c76b362e4e6a8a61efd0e94a08947b062f76df9bbd5ee5",
    (
        "fang1994-an2-n2",
        "seed7",
    ): "3cbe021107443e559a68900fca3132244bb1c92feaf30b95e9f05942ff45c25f",
    (
        "fang1994-an2-n3",
        "plain",
    ): "b4ca71ecf61d4738feb0a111d2ade0d6f776eb6c03dae6d9c91fd70ea6a658ce",
    (
        "fang1994-an2-n3",
        "short",
    ): "b2d5e1481b31110b671f30b2fdf33ac80bb65b926f56d8bef0a9b0d09d05e6c5",
    (
        "fang1994-an2-n3",
        "seed7",
    ): "1dcd09bf8444281ee7f08144025cbe908af979973966ea692413a112e74d56f8",
    (
        "fang1994-an2-n4",
        "plain",
    ): "3a63495fdc3b3229efafaf47f6217d0c8956f655e2ba5f6d73b40f96ef152791",
    (
        "fang1994-an2-n4",
        "short",
    ): "47147dbd9c07ba75522e81f8d6f03aba644396058e889801f6004b3aef1cb4bd",
    (
        "fang1994-an2-n4",
        "seed7",
    ): "4fc0fe3af9c425ca723a8b45b6bad3efac1fd784857c6651f04abbc143159631",
    (
        "fang1994-an2-n5",
        "plain",
    ): "d0e8960f7e7c38b56d29867921ad5735c8d2f71e0314b9ac5b897489a5ec3644",
    (
        "fang1994-an2-n5",
        "short",
    ): "7188ea90dd35ec6bf70744064c4a504fb58db4571648616454516b311e784860",
    (
        "fang1994-an2-n5",
        "seed7",
    ): "6f5e689d0bf24aacd546898abf91200308190a341128ed189cbbd47c0eb4fb1e",
    (
        "fang1994-an2-n6",
        "plain",
    ): "ea77f6c17ea64a0237c4b13f28fa5bc9784565ac1e48a7af673db489be39ca85",
    (
        "fang1994-an2-n6",
        "short",
    ): "2ae0ad38cd3eaa0e17916f65297286f46586106cf8ed88819623625abc26f95c",
    (
        "fang1994-an2-n6",
        "seed7",
    ): "8372a9ae5782d4a87cc622c50e3f7e038b1558325faee7dcdfcb0b2d85e7d586",
    (
        "fang1994-cell-drop",
        "plain",
    ): "3388ec4ec90ac96f0d497563a5f41b935645529fb0c40e98590523715512a569",
    (
        "fang1994-cell-drop",
        "short",
    ): "b08c9e9fcb57f5b9260a37c42b5e81c9ff108091695d50d46dfba1214cf3af7f",
    (
        "fang1994-cell-drop",
        "seed7",
    ): "7b922ab2b73c74ad71d2cdbcc96eef3997b705e4e8aa2288480039324c55340e",
    (
        "fang1994-cell-drop-n1",
        "plain",
    ): "cf35e7613205f87dd0bdf8ea06bc5cbd654c7e0e64eaaf8ff3d32ed8ff413a2a",
    (
        "fang1994-cell-drop-n1",
        "short",
    ): "43d611cf5f5a5c42a2639f39fdc8aa9327f02045b3c344569cd6e4fd863ecf89",
    (
        "fang1994-cell-drop-n1",
        "seed7",
    ): "38f6164e6b3284c3f36e4bd709017b3949ab49d1f3e0bdd09426b9a5c5c97c7a",
    (
        "fang1994-cell-drop-n2",
        "plain",
    ): "8a7898942d1dd21b140f9a1bd2e826dd40420892608e85d5b7daca51c3e51000",
    (
        "fang1994-cell-drop-n2",
        "short",
    ): "6609e916aa8d1b066ef9a2ae99bb5339f0b543fd967d168831665626b0869ba1",
    (
        "fang1994-cell-drop-n2",
        "seed7",
    ): "ef965ae53355a84273203582c22942636bb7b097cb303106f042c6b9f8f73306",
    (
        "fang1994-cell-drop-n3",
        "plain",
    ): "1f79378f71e8a8cc0091e16c69b1f8f4530bf7c5010d105cf6b0fc58e7bee564",
    (
        "fang1994-cell-drop-n3",
        "short",
    ): "6e67727aeb1aa53c7aad158c8b7abbf31ef0f5ed5effbc0163ca05fa080a064a",
    (
        "fang1994-cell-drop-n3",
        "seed7",
    ): "038a1f5be49e0f40c634afa99b6f353f787ef8e9f035c5f0aa8893aa3fd24b55",
    (
        "fang1994-cell-drop-n4",
        "plain",
    ): "d11a714cb187560f8fbf0739874fca729be4ce9c6907e319d3c999a4d3054c63",
    (
        "fang1994-cell-drop-n4",
        "short",
    ): "98a197f93b381afd90c2ee9978594599dc7738fee088e1e54f5ad05f88c082c1",
    (
        "fang1994-cell-drop-n4",
        "seed7",
    ): "8b8e05484cdab73edc7cc727706aa8f88047b465b1a167f4a9a260a0d974b593",
    (
        "fang1994-cell-drop-n5",
        "plain",
    ): "f7fece59c74dd7bda845e5c4c5266a13852e8b7c8dcb26aa32cfb523761927e9",
    (
        "fang1994-cell-drop-n5",
        "short",
    ): "94cee32d9bc488b8effbc931e4d7e655334613db56e0b477437eb4035ef3bc59",
    (
        "fang1994-cell-drop-n5",
        "seed7",
    ): "3a5ccddc9c548ed3fa1eded78692218f640bb8eba3b5c31841a7eb11701340eb",
    (
        "fang1994-cell-drop-n6",
        "plain",
    ): "2d706637f1aa4c90a57e5f2fa9e3ffb8b7973ba9f7413bb029624a5bc8a86e4c",
    (
        "fang1994-cell-drop-n6",
        "short",
    ): "b62b286b3c02c237773738f2f4b29006aa07a391b894f4c2aba7e404c10b6688",
    (
        "fang1994-cell-drop-n6",
        "seed7",
    ): "10eb2874537bd1a70345fb75c1f433292436625e47ec672876e4639f00801847",
    ("fang1994-mss64", "plain"): "9bcc2a2ae4e173b72afd0a07576d74b3b11a7238433a6113384fafcd977b9b83",
    ("fang1994-mss64", "short"): "5d1f707c7c87f5ccc9589fadf22a5eefcc2d8cb2de9c6b5fa4a16ebb4a313a02",
    ("fang1994-mss64", "seed7"): "0468ab68fb1a23659076bb4d47ea27fa0737546887d0a2650c8b9886743adaaa",
    (
        "fang1994-mss64-alone",
        "plain",
    ): "9c5e48dda5eaa1f64811042fa091f168531dacb6b11b5bba8c683eeda28d8055",
    (
        "fang1994-mss64-alone",
        "short",
    ): "6ae0b969308fbc799839f016e8a5b47f4d61876e8d0a4cbcdf2091f570165ea9",
    (
        "fang1994-mss64-alone",
        "seed7",
    ): "9e56c9c84c3320efdb4965e5bc0c3401a8926a2aca31e1814b083b59380f54c8",
    ("goyal1998-fifo", "plain"): "874855bb95a6facf78eee9cd4bcd26bcb548cddd3954cbb147d1b5e82c1e31a1",
    ("goyal1998-fifo", "short"): "2169fdcb4ccb4b6d5a894434cbb77dd4577b1d76fd2f4af4d46923c03f43f893",
    ("goyal1998-fifo", "seed7"): "8b6b88d325831cfa8ed4a7ea23db8628f2b64171d9373c31e766f9340989fb7e",
    ("goyal1998-fig3", "plain"): "49e78ac3071cde14e06f12ded76c45c015870ea2ba57be1b12554c7ceaf2d5c9",
    ("goyal1998-fig3", "short"): "0db440c51691923d5f57cc7ff6225c4ca31b1de25befb9414d3d09a107fa0db5",
    ("goyal1998-fig3", "seed7"): "384d4b22d23b7256f0db980a66b2b582fcf6043866bd53a34bef6f761effcd3f",
    (
        "goyal1998-merge",
        "plain",
    ): "477fb3ed31b5b99641561b8e4c8f465b1b8e20e2bffc0a59c85e39246ed9a8e4",
    (
        "goyal1998-merge",
        "short",
    ): "24899b483883dfc1d7fcadcf6feaeeba10497975221dfac87f75fc4f16730fa4",
    (
        "goyal1998-merge",
        "seed7",
    ): "e4ebdb0eb41e82af003603f9cb51f7f041d2cbae06ebce6aea9687bd19665ca1",
    (
        "kalyanaraman1996-table1",
        "plain",
    ): "0f65cd2e21b6f7489ac59b4f80900e81bc95f522229a774e42c05a540475360f",
    (
        "kalyanaraman1996-table1",
        "short",
    ): "4303e515618ff7efe9c068104ccee9c816b92ec7864ae105fb66d2a3a2548e1f",
    (
        "kalyanaraman1996-table1",
        "seed7",
    ): "ed3032c35c7cad2be8b5b7d060294f56793521e0b40de7067d2176381a542460",
    (
        "kalyanaraman1996-table2",
        "plain",
    ): "7cd4d77d1aee11824d38245ae2116ae83359081f279fe5d5aeeae61eba9cd19f",
    (
        "kalyanaraman1996-table2",
        "short",
    ): "a9592acb6ee4a2ded01cf41a5be4efc01dfc541da8487240ebb74a1327bb6688",
    (
        "kalyanaraman1996-table2",
        "seed7",
    ): "856cf5178f198512d7ca51b4d568519e018ede9e1ceab2a74769819c06638f65",
    (
        "kalyanaraman1996-table4",
        "plain",
    ): "1632062dad1a653550eacdb4515ac3f94c757ec9fe5a4e698182dfafaca1bbd8",
    (
        "kalyanaraman1996-table4",
        "short",
    ): "86c4b57476eec6e105ec54fd702e4b9bef163a885d389f10eb1662420bf2db13",
    (
        "kalyanaraman1996-table4",
        "seed7",
    ): "f58a23b788a4732334c3d046c1dd67c8211a7408a6f3b416e4d593a038df66dc",
    (
        "vbr-priority-5tcp",
        "plain",
    ): "4983d337fcce3916fbc8df71d03e68b2f614cbae70d745af2b03cf6ec2e7541b",
    (
        "vbr-priority-5tcp",
        "short",
    ): "1574c31a1b8dfc4ddd0631e7babf49676eda70acbf75f726490bdde0d9816286",
    (
        "vbr-priority-5tcp",
        "seed7",
    ): "23ef9bd7887d461671e13716522cab3914a3b0990ee8b4a752919d06742c45e7",
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
