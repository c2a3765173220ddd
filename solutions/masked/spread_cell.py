# Why 1/sqrt(d_k): raw dot products spread out as the keys get wider, and softmax saturates.
import matplotlib.pyplot as plt

rng = np.random.default_rng(0)
widths = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
spread_raw, spread_scaled, top_raw, top_scaled = [], [], [], []
for d_k in widths:
    Q, K = rng.normal(size=(200, d_k)), rng.normal(size=(10, d_k))
    for S, spread, top in (
        (Q @ K.T, spread_raw, top_raw),
        (Q @ K.T / np.sqrt(d_k), spread_scaled, top_scaled),
    ):
        W = np.exp(S - S.max(axis=-1, keepdims=True))
        W /= W.sum(axis=-1, keepdims=True)
        spread.append(S.std())
        top.append(W.max(axis=-1).mean())  # how much of its weight a row gives its favourite key

fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), layout="constrained")
axes[0].plot(widths, spread_raw, "o-", label="raw q . k")
axes[0].plot(widths, spread_scaled, "o-", label="q . k / sqrt(d_k)")
axes[0].set(xscale="log", yscale="log", xlabel="d_k", ylabel="standard deviation of the scores")
axes[1].plot(widths, top_raw, "o-", label="raw q . k")
axes[1].plot(widths, top_scaled, "o-", label="q . k / sqrt(d_k)")
axes[1].set(xscale="log", ylim=(0, 1.05), xlabel="d_k", ylabel="largest weight of a row (10 keys)")
for ax in axes:
    ax.legend()
plt.show()
print(
    f"d_k = 512: raw scores spread {spread_raw[-1]:.1f} and a row gives {top_raw[-1]:.0%} to one key;"
)
print(
    f"           scaled scores spread {spread_scaled[-1]:.2f} and a row gives {top_scaled[-1]:.0%} to one key."
)
