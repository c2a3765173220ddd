"""An assignment's content, as the engine sees it: the reference, the mistake catalogue, the worked
example and the hooks of `solutions/<assignment>/content.py`. Nothing here names an assignment."""
