"""The card model: the ONNX file, its model card, and the code that makes and measures it.

``cards.onnx`` and its card ``README.md``; ``deck`` (card faces of many
styles), ``scene`` (overhead frames of the mat with their truth), ``dataset``
and ``train`` (crops and training: needs ``pip install -e ".[train]"``), and
``evaluate`` (the model card's figures). The reader (``vision``) runs the model
but never imports this package: training code stays out of the Pi's path.

May import (of the project): ``table`` and ``vision``.
"""

from vision.classifier import DEFAULT_THRESHOLD as CONFIDENCE_THRESHOLD

__all__ = ["CONFIDENCE_THRESHOLD"]
"""``CONFIDENCE_THRESHOLD`` is the reader's own (``vision.classifier.DEFAULT_THRESHOLD``): one value."""
