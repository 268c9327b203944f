// What codex's reviewer (review/start) answers in the tests: its JSON review output, one finding.

/** What codex's reviewer answers: its JSON review output. */
export const REVIEW = JSON.stringify({
  findings: [
    {
      title: "Greeting misspelled",
      body: "`helo` should be `hello`.",
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: "/work/a.txt", line_range: { start: 1, end: 1 } },
    },
  ],
  overall_correctness: "patch is incorrect",
  overall_explanation: "One typo in the greeting.",
  overall_confidence_score: 0.8,
});
