"""A tiny random-weight Llama with a word-level tokenizer, built offline and saved to a folder that
`AutoModelForCausalLM` / `AutoTokenizer` load like a hub checkpoint. For plumbing tests only."""

from __future__ import annotations

from pathlib import Path

WORDS = ("<unk> <s> </s> <pad> this user has watched listened to in the previous please predict next "
         "artist movie candidates are choose only one from answer is , . a b c d e f g h i j k l m n o p "
         "q r s t alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu").split()


def build_tiny_llama(folder, seed: int = 0, hidden: int = 16) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = Path(folder)
    vocab = {w: i for i, w in enumerate(dict.fromkeys(WORDS))}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", bos_token="<s>", eos_token="</s>",
                                  pad_token="<pad>")
    cfg = LlamaConfig(vocab_size=len(vocab), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024,
                      bos_token_id=1, eos_token_id=2, pad_token_id=3)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(cfg)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
