"""A tiny random-weight LLaVA (CLIP vision tower + Llama text model) with its processor, built
offline from configs and saved to a folder that `AutoModelForImageTextToText` / `AutoProcessor`
load like a hub checkpoint. For tests of the captioning path only: its captions are noise."""

from __future__ import annotations

from pathlib import Path


def build_tiny_llava(folder, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration, LlavaProcessor, PreTrainedTokenizerFast)

    folder = Path(folder)
    words = ["<unk>", "<s>", "</s>", "<pad>", "<image>", "USER:", "ASSISTANT:"] + \
        "a an the poster image photo of with man woman red blue green dark bright text title city night day " \
        "sky car dog cat mood calm tense style bold describe this in detail objects people".split()
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", bos_token="<s>", eos_token="</s>",
                                  pad_token="<pad>", extra_special_tokens={"image_token": "<image>"})
    image_proc = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    proc = LlavaProcessor(image_processor=image_proc, tokenizer=tok, patch_size=8,
                          vision_feature_select_strategy="default", num_additional_image_tokens=1,
                          image_token="<image>")
    vision = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=8, projection_dim=16)
    text = LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
                       bos_token_id=1, eos_token_id=2, pad_token_id=3, initializer_range=0.5)
    vision.initializer_range = 0.5
    cfg = LlavaConfig(vision_config=vision, text_config=text, image_token_index=vocab["<image>"],
                      vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(cfg)
    model.generation_config.pad_token_id = 3
    model.generation_config.eos_token_id = 2
    model.save_pretrained(folder)
    proc.save_pretrained(folder)
    return folder
