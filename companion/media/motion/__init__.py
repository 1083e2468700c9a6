"""What the frames' motion is: the seamless loop's span, the character's rigid core held
in place, a shape's depth."""
