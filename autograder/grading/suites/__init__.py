"""Hidden pytest suites, one file per part; never shipped to students. Run by autograder.grading.suite_runner."""
