"""Writes the seed corpus of the fuzz harness (tests/fuzz/corpus/seed-*): for each model, valid
states and options exercising every call of tests/fuzz/fuzz_runtime.c once. The byte layout is the
harness's decoder: model, option mask (2 bytes, 0 = defaults), parameter flag, workspace choice,
statics flag, x and v (0 = the model's), time flag, then (dt, operation, operands) per call.
Run: /usr/bin/python3 tests/fuzz/make_seeds.py"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDINARY = 12  # real(): k % 16 >= 12 is the ordinary value scaled by (1 + (b - 128) / 1024)
CALLS = {
    "step": [0],
    "advance": [1],
    "dense": [2, 1, 0],
    "multipliers": [3, 0, 0, 0],
    "energy": [4, 0],
    "lock": [5, 1, 0, 0],
    "lock_group": [6, 0, 1, 0],
    "unlock": [7, 1],
    "momenta": [8, 0],
    "set_state": [9, 0, 0],
}


def seed(model, calls, statics=False, mask=(0, 0), option_bytes=()):
    data = [model, *mask, *option_bytes, 0, 1]  # options, no parameter change, full workspace
    data += [0, 0, 0] if statics else [1]  # statics from x0 with defaults (byte % 8 == 0)
    if statics:
        data += [0] * 16
    data += [0, 0, 0]  # x0, v0, t = 0
    for name in calls:
        data += [ORDINARY, 128] + CALLS[name]  # dt = 0.01, then the call
    return bytes(data)


def main():
    corpus = HERE / "corpus"
    corpus.mkdir(exist_ok=True)
    for model in range(3):
        runs = {
            "march": ["step", "advance", "dense", "multipliers", "energy", "momenta"],
            "locks": ["step", "lock", "step", "unlock", "lock_group", "advance"],
            "restart": ["advance", "set_state", "step", "dense"],
        }
        for name, calls in runs.items():
            (corpus / f"seed-{model}-{name}").write_bytes(seed(model, calls))
        (corpus / f"seed-{model}-statics").write_bytes(seed(model, ["step"], statics=True))
        dopri5 = seed(model, ["advance", "dense", "step"], mask=(1, 0), option_bytes=(2,))
        (corpus / f"seed-{model}-dopri5").write_bytes(dopri5)  # method byte 2: DOPRI5


if __name__ == "__main__":
    main()
