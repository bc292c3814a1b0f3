"""Image captions for the multimodal knowledge measure (paper §3 (j), Figure 3): posters and product
images are described by a vision-language model, and the questions show the descriptions."""
