/* fixture: the hub */
