"""What a job asks for: the typed request built by one constructor, the defaults left
open by the user, its input images, its name, and the create body sent for it."""
