#!/bin/bash
# session 17 call 7: fla's fwd+bwd anchors (call 6's timed out in Triton's first compile), every shape of issue 8
PYTHONPATH=.fla timeout 500 python3 bench/anchors/bwd_anchors.py > $OUT/anchors-bwd.txt 2>$OUT/anchors-bwd.err
echo "anchors-bwd rc=$?"; cat $OUT/anchors-bwd.txt; tail -2 $OUT/anchors-bwd.err
