# Your heads on "two plus three equals", causal, next to the reference's (from public_cases.json).
import matplotlib.pyplot as plt
from public_checks import decode

TOKENS = ["two", "plus", "three", "equals"]
HEADS = ["numbers", "operator"]
case = CASES["functions"]["multi_head_attend"][0]
reference_A = decode(case["expected"])[1]
try:
    your_A = np.asarray(multi_head_attend(*[decode(a) for a in case["args"]])[1], dtype=float)
except NotImplementedError:
    your_A = None
    print("multi_head_attend() is not implemented yet: fill it in above to see your heads here.")
except Exception as e:
    your_A = None
    print(f"multi_head_attend() raised {type(e).__name__}: {e}")
else:
    if your_A.shape != reference_A.shape:
        print(
            f"your A has shape {your_A.shape}, expected {reference_A.shape} (one matrix per head)"
        )
        your_A = None

fig, axes = plt.subplots(2, 2, figsize=(9, 7), layout="constrained")
for h, head in enumerate(HEADS):
    for ax, A, title in ((axes[h, 0], your_A, "yours"), (axes[h, 1], reference_A, "reference")):
        ax.set_title(f"head {h} ({head}): {title}")
        ax.set_xticks(range(len(TOKENS)), TOKENS)
        ax.set_yticks(range(len(TOKENS)), TOKENS)
        ax.set_xlabel("attends to (key)")
        ax.set_ylabel("token (query)")
        if A is None:
            ax.set(xlim=(-0.5, len(TOKENS) - 0.5), ylim=(len(TOKENS) - 0.5, -0.5), aspect="equal")
            ax.text(0.5, 0.5, "not available yet", ha="center", va="center", transform=ax.transAxes)
            continue
        ax.imshow(A[h], cmap="Blues", vmin=0, vmax=1)
        for i in range(A.shape[1]):
            for j in range(A.shape[2]):
                color = "white" if A[h, i, j] > 0.55 else "black"
                ax.text(j, i, f"{A[h, i, j]:.2f}", ha="center", va="center", color=color)
plt.show()
