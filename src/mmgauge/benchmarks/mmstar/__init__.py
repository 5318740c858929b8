"""MMStar: 1,500 single-choice questions, 6 core capabilities x 3 detailed axes, scored as VLMEvalKit scores
it (each question once, exact matching of the option letter, then the judge). `bench.MMStarBenchmark` is the
benchmark; `predictions.score_predictions` scores a VLMEvalKit predictions file."""
