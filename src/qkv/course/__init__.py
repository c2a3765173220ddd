"""The course: course.yaml as validated dataclasses, and the name of every file and folder the kit uses."""
