#!/usr/bin/env python3
"""Reference workload for ``neuroncmp capture``: the seed's setup, a Hugging Face Trainer fine-tune
of a BERT-base-size model for text classification on torch-neuronx (trn1), batch size as argument.

Capture a batch-size sweep on a trn1.2xlarge (docs/commands/capture.md)::

    neuroncmp capture --batch 2,4,8,16,32 --out runs/bert --steps 20 -- \\
        python scripts/train_bert_neuron.py --batch {batch} --max-steps {steps} --output-dir {out}

It follows AWS's "Hugging Face BERT MRPC task finetuning using Hugging Face Trainer API" tutorial
for Trainium (sequence length 128, ``NEURON_CC_FLAGS=--model-type=transformer``, BF16), with two
changes that make it self-contained and quick to capture: the model is BERT-base-size
(``BertConfig()``: 12 layers, hidden 768, 12 heads, about 110M parameters) with random weights
unless ``--pretrained NAME`` names a checkpoint to download, and the data are synthetic token ids
(``--samples`` of them, two labels): a device profile measures the work of a step, which depends
on shapes, not on the words. The Trainer prints its ``***** train metrics *****`` block and
writes ``all_results.json`` into ``--output-dir``, which ``neuroncmp capture`` keeps.

``--tiny``: a 2-layer, hidden-32 BERT on 64 synthetic samples that runs on CPU in seconds where
torch and transformers are installed (``pip install torch transformers accelerate``); it checks the
script, not the device. Without ``--tiny`` it needs torch-neuronx from AWS's Neuron repository.
"""

from __future__ import annotations

import argparse
import os
import sys

NEURON_PIP = "https://pip.repos.neuron.amazonaws.com"
FIX = f"pip install --force-reinstall torch-neuronx neuronx-cc --extra-index-url={NEURON_PIP}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, required=True, help="per-device train batch size")
    parser.add_argument("--max-steps", type=int, default=20, help="optimizer steps (default 20)")
    parser.add_argument("--output-dir", default="bert-output", help="Trainer output folder")
    parser.add_argument("--seq-len", type=int, default=128, help="tokens per sample (default 128)")
    parser.add_argument("--samples", type=int, default=2048, help="synthetic training samples")
    parser.add_argument("--pretrained", default=None,
                        help="start from this Hugging Face checkpoint (downloads it), e.g. bert-base-cased")
    parser.add_argument("--tiny", action="store_true",
                        help="tiny model, 64 samples, on CPU: checks the script without a device")
    args = parser.parse_args(argv)
    if args.batch <= 0 or args.max_steps <= 0:
        parser.error("--batch and --max-steps must be positive")
    return args


def neuron_ready() -> None:
    """Exit with one line when torch-neuronx is missing or is PyPI's placeholder."""
    try:
        import torch_neuronx  # noqa: F401  (registers the Neuron XLA device)
    except ImportError as exc:
        reason = "is PyPI's placeholder" if "WRONG PACKAGE" in str(exc) else "is not installed"
        sys.exit(f"train_bert_neuron.py: torch-neuronx {reason} ({exc}): {FIX} (or --tiny on CPU)")


def model_and_data(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    if args.tiny:
        config = BertConfig(vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=64, num_labels=2)
        args.seq_len, args.samples = min(args.seq_len, 32), 64
    else:
        config = BertConfig(num_labels=2)  # BERT-base: 12 layers, hidden 768, 12 heads
    if args.pretrained and not args.tiny:
        model = BertForSequenceClassification.from_pretrained(args.pretrained, num_labels=2)
    else:
        model = BertForSequenceClassification(config)
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, config.vocab_size, (args.samples, args.seq_len), generator=generator)
    labels = torch.randint(0, 2, (args.samples,), generator=generator)
    data = [{"input_ids": ids[i], "attention_mask": torch.ones(args.seq_len, dtype=torch.long),
             "labels": labels[i]} for i in range(args.samples)]
    return model, data


def train(args: argparse.Namespace) -> dict:
    from transformers import Trainer, TrainingArguments

    model, data = model_and_data(args)
    options = dict(output_dir=args.output_dir, per_device_train_batch_size=args.batch,
                   max_steps=args.max_steps, learning_rate=2e-5, logging_steps=max(1, args.max_steps // 4),
                   save_strategy="no", report_to=[], dataloader_drop_last=True)
    if args.tiny:
        options["use_cpu"] = True
    trainer = Trainer(model=model, args=TrainingArguments(**options), train_dataset=data)
    metrics = trainer.train().metrics
    metrics["train_samples"] = len(data)
    trainer.log_metrics("train", metrics)  # prints '***** train metrics *****'
    trainer.save_metrics("train", metrics)  # train_results.json and all_results.json
    return metrics


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.tiny:
        # AWS's tutorial settings, before anything compiles: transformer tuning and full BF16
        # (XLA_USE_BF16; newer torch-xla releases deprecate it: check on the SDK you run)
        os.environ.setdefault("NEURON_CC_FLAGS", "--model-type=transformer")
        os.environ.setdefault("XLA_USE_BF16", "1")
        neuron_ready()
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
