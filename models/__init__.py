"""The card model: the ONNX file, its model card, and the code that makes and measures it.

``cards.onnx`` and its card ``README.md``; ``deck`` (card faces of many
styles), ``scene`` (overhead frames of the mat with their truth), ``dataset``
and ``train`` (crops and training: needs ``pip install -e ".[train]"``), and
``evaluate`` (the model card's figures). The reader (``vision``) runs the model
but never imports this package: training code stays out of the Pi's path.

May import (of the project): ``table`` and ``vision``.
"""

CONFIDENCE_THRESHOLD = 0.9
"""Least probability, in both the crop and its half-turned view, for a card to be called.

Below it the reader says ``unknown`` rather than guess; ``vision.classifier``
uses the same value, and ``models.evaluate`` measures the model at it.
"""
