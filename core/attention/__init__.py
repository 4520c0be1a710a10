"""Positions inside attention: one head on the same content under every way of giving it positions, side by side.

    logits[m, n] = q_m . k_n / sqrt(head_dim) + bias(m, n),   q = x W_q,  k = x W_k

Read in this order, each module importing only those before it:

1. core.attention.head    the settings (AttentionConfig) and the content one head sees: tokens, x, W_q, W_k.
2. core.attention.scores  each scheme's logits: the position vectors it adds, the bias it adds or the rotation it
                          applies (scores), then the causal mask and softmax (attend).
3. core.attention.checks  two questions every scheme answers: does moving every position change the logits
                          (shift_check), and what happens past the length it was trained on (beyond).
4. core.attention.view    every scheme side by side (compare), the score against distance (score_by_distance) and
                          the page's one call (attention_view).

The package exports nothing itself: a caller imports from the module that defines the name.
"""
