"""What graders and students read after grading: feedback pages, the class report, the terminal summary."""
