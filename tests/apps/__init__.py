"""Small Streamlit scripts the tests serve: each shows one behaviour of the app's machinery on a
page of its own."""
