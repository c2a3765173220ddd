"""LTI 1.3 in the service: launches from an LMS, deep linking, grades and rosters through its APIs."""
