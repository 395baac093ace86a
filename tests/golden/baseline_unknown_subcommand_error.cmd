baseline list
