# Your attention matrix on "two plus three" next to the reference's (from public_cases.json).
import matplotlib.pyplot as plt

TOKENS = ["two", "plus", "three"]
case = CASES["functions"]["attend"][0]
reference_A = np.array(case["expected"]["tuple"][1])
try:
    your_A = np.asarray(attend(*[np.array(a) for a in case["args"]])[1], dtype=float)
except NotImplementedError:
    your_A = None
    print("attend() is not implemented yet: fill it in above to see your attention table here.")
except Exception as e:
    your_A = None
    print(f"attend() raised {type(e).__name__}: {e}")
else:
    if your_A.shape != reference_A.shape:
        print(f"your A has shape {your_A.shape}, expected {reference_A.shape}")
        your_A = None

fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
for ax, A, title in ((axes[0], your_A, "yours"), (axes[1], reference_A, "reference")):
    ax.set_title(f"A = softmax(S): {title}")
    ax.set_xticks(range(len(TOKENS)), TOKENS)
    ax.set_yticks(range(len(TOKENS)), TOKENS)
    ax.set_xlabel("attends to (key)")
    ax.set_ylabel("token (query)")
    if A is None:
        ax.set(xlim=(-0.5, len(TOKENS) - 0.5), ylim=(len(TOKENS) - 0.5, -0.5), aspect="equal")
        ax.text(0.5, 0.5, "not available yet", ha="center", va="center", transform=ax.transAxes)
        continue
    ax.imshow(A, cmap="Blues", vmin=0, vmax=1)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            ax.text(
                j,
                i,
                f"{A[i, j]:.2f}",
                ha="center",
                va="center",
                color="white" if A[i, j] > 0.55 else "black",
            )
plt.show()
