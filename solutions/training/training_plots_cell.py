# Your train() from the course seed's weights, next to the reference's (from public_cases.json).
import matplotlib.pyplot as plt

case = CASES["functions"]["train"][0]
start_q, start_k = (np.array(a) for a in case["args"])
ref_q, ref_k, ref_losses = (np.array(a) for a in case["expected"]["tuple"])
try:
    your_q, your_k, your_losses = train(start_q.copy(), start_k.copy())
except NotImplementedError:
    your_q = your_k = your_losses = None
    print("train() is not implemented yet: fill it in above to see your training here.")
except Exception as e:
    your_q = your_k = your_losses = None
    print(f"train() raised {type(e).__name__}: {e}")

fig, axes = plt.subplots(1, 3, figsize=(13, 3.6), layout="constrained")
ax = axes[0]
ax.set_title("mean loss over the training sentences")
ax.plot(ref_losses, label="reference", color="0.6", lw=3)
if your_losses is not None:
    ax.plot(np.asarray(your_losses, dtype=float), label="yours", color="C0")
ax.set_yscale("log")
ax.set_xlabel("step")
ax.legend()

for ax, sentence in ((axes[1], "two plus three"), (axes[2], "please two plus now three")):
    words = sentence.split()
    rows = [
        ("before", predict(sentence, start_q, start_k)),
        ("reference", predict(sentence, ref_q, ref_k)),
    ]
    if your_q is not None:
        rows.append(("yours", predict(sentence, np.asarray(your_q), np.asarray(your_k))))
    width = 0.8 / len(rows)
    for k, (label, (prediction, row)) in enumerate(rows):
        ax.bar(
            np.arange(len(words)) + (k - (len(rows) - 1) / 2) * width,
            row,
            width,
            label=f"{label}: reads out {prediction:.2f}",
        )
    ax.set_xticks(range(len(words)), words)
    ax.set_ylim(0, 1)
    ax.set_title(f"how 'plus' attends in '{sentence}'")
    ax.legend(fontsize=8, loc="upper right")
plt.show()
