"""Long recordings of the DEV split (we tune on these): a greeting that lists every topic, a
sponsor read, chapters of several sentences with chatter between them, and a recap. Six
questions each, asked directly ("how do I…", "what…", "why…")."""
from __future__ import annotations

from .corpus import Part, Recording, q

HOME_REPAIR = Recording(
    "home-repair-workshop", "Saturday home repair workshop", "dev", "long", (
        Part("intro", "Welcome to the workshop", (
            "Hey everyone, welcome back to the Saturday home repair workshop. Grab a coffee and settle in, "
            "this is going to be a long one.",
            "Today we cover six repairs: a dripping faucet, a hole in the drywall, re-caulking a bathtub, "
            "a slow sink drain, a squeaky door hinge, and as a bonus, a wobbly kitchen chair.",
            "So whether your faucet drips, your wall has a hole, your tub caulk is moldy, your drain is slow, "
            "your hinge squeaks or your chair wobbles, stick around, because we will fix all of it.",
            "Everything for today is on the bench: screwdrivers, an adjustable wrench, a utility knife, a caulk "
            "gun, a putty knife, a hammer, some clamps and a lot of rags.",
        )),
        Part("sponsor", "A word from our sponsor", (
            "Before we start, a quick word from today's sponsor, Hammerline tool rental.",
            "Hammerline rents out everything from tile saws to floor sanders by the day, so you do not have to "
            "buy a tool you will only ever use once.",
            "Use the code workshop ten for ten percent off your first rental. The link is in the description, "
            "and thank you to Hammerline for keeping this channel going.",
        )),
        Part("faucet", "Chapter 1: the dripping faucet", (
            "Alright, first up is the dripping bathroom faucet, and I have one right here on the bench that my "
            "neighbour brought over last week.",
            "Before you touch anything, shut off the two supply valves under the sink and open the tap to let "
            "the pressure out of the line.",
            "Put a rag in the drain so no small parts disappear down the pipe. I have lost more screws that way "
            "than I would like to admit.",
            "Pop off the decorative cap with a flat screwdriver, then undo the handle screw. On this one it is "
            "a two and a half millimetre hex key.",
            "Now the retaining nut. Use an adjustable wrench, wrap the jaws in electrical tape so you do not "
            "scratch the chrome, and turn it counterclockwise.",
            "Pull the cartridge straight up and out. Take the old one to the hardware store with you, because "
            "there are dozens of shapes and they are not interchangeable.",
            "Before the new cartridge goes in, smear a little silicone plumber's grease on the O-rings. Never use "
            "petroleum jelly there, it makes the rubber swell and fail.",
            "Line up the tab on the cartridge with the notch in the valve body, tighten the nut snug plus a "
            "quarter turn, and put the handle back on.",
            "Turn the supply valves on slowly and watch for drips for a full minute. If hot and cold come out "
            "reversed, just rotate the cartridge one hundred and eighty degrees.",
        )),
        Part("chat-1", "Quick break", (
            "Quick break. It is pouring rain outside today, which honestly is perfect weather to stay in the "
            "garage and fix things.",
            "Someone in the chat asks if I have ever flooded the ceiling below. Yes, once, years ago, and my "
            "wife still brings it up at every family dinner.",
        )),
        Part("drywall", "Chapter 2: a hole in the drywall", (
            "Okay, chapter two, a hole in the drywall. This one is about the size of a doorknob, which is "
            "exactly what happens when a door has no stopper.",
            "For anything bigger than a coin, I cut a clean square around the damage with a jab saw, so the "
            "patch has straight edges to sit against.",
            "Screw two strips of scrap wood inside the hole, behind the wall, one at the top and one at the "
            "bottom. Those are your backing strips.",
            "Cut a piece of half inch drywall to fit the square and screw it to the strips, sinking the screw "
            "heads just below the paper face.",
            "Tape the seams with fiberglass mesh tape, then spread the first coat of joint compound with a six "
            "inch knife.",
            "Let it dry completely, usually overnight, then do a second coat with a wider ten inch knife and "
            "feather it out a few inches past the first one.",
            "Sand lightly with a one hundred and twenty grit sanding sponge, and hold a flashlight at a low "
            "angle against the wall so every ridge casts a shadow.",
            "Prime the patch before painting. Otherwise the compound soaks up the paint and you get a dull spot "
            "that painters call flashing.",
        )),
        Part("chat-2", "Water break", (
            "Let me grab some water. Someone asked what music I listen to when I work. It is mostly old blues "
            "records, and a lot of podcasts about history.",
            "And yes, the dog is fine, he is sleeping under the bench. You can hear him snoring if you turn the "
            "volume up.",
            "Oh, and a few people asked about the shirt. It is from a hardware store that closed down in the "
            "nineties. I have had it longer than I have had this house.",
        )),
        Part("caulk", "Chapter 3: re-caulking the tub", (
            "Next, the bathtub. The old caulk here is cracked and a bit black in the corners, and that means "
            "water is getting in behind it.",
            "Cut the old bead out with a utility knife and a plastic removal tool, and get every last strip, "
            "because new caulk will not stick to old caulk.",
            "Wipe the joint with rubbing alcohol to take off the soap scum, and let it dry completely. Give it a "
            "few hours, or point a fan at it.",
            "Use one hundred percent silicone in a bathroom, the kind labelled kitchen and bath with mildew "
            "resistance, and not the acrylic painter's caulk.",
            "Here is a trick people skip: fill the tub with water before you caulk. The weight pulls the tub "
            "down, so the joint does not tear the first time someone steps in.",
            "Put painter's tape on both sides of the joint, about a quarter inch apart, and you will get a "
            "perfectly straight line.",
            "Cut the nozzle small, at a forty five degree angle, and push the bead ahead of the gun rather than "
            "dragging it behind.",
            "Smooth it with a fingertip dipped in soapy water, pull the tape right away while the silicone is "
            "still wet, and wait twenty four hours before anyone showers.",
        )),
        Part("chat-3", "Halfway there", (
            "Alright, we are halfway there. Thanks to everyone who joined in the last few minutes, welcome in.",
            "A viewer named Marcus says his landlord will not fix anything. Marcus, read your lease first, but "
            "honestly everything today is doable yourself on a weekend.",
        )),
        Part("drain", "Chapter 4: the slow drain", (
            "Chapter four is the slow sink drain, which in my house is always hair, toothpaste and soap.",
            "Skip the chemical drain cleaners. They are hard on old pipes, and they are dangerous to splash in "
            "your eyes if you end up opening the pipe anyway.",
            "First try the pop-up stopper. Under the sink there is a pivot nut on the back of the drain pipe. "
            "Unscrew it, pull the rod out, and the stopper lifts right out.",
            "Nine times out of ten there is a clump of hair wrapped around the stopper, so clean it off and run "
            "the water.",
            "If it is still slow, use a plastic barbed drain strip, the cheap ones that cost about three "
            "dollars, and push it down and pull it up a few times.",
            "Still slow? Put a bucket under the P trap, unscrew the two slip nuts by hand, and clean the trap "
            "out with an old toothbrush.",
            "When you put the trap back, make sure the washers face the right way, beveled side toward the "
            "fitting, and tighten by hand plus a little more.",
            "Finish by running hot water for a full minute and check the slip nuts with a dry paper towel for "
            "any drips.",
        )),
        Part("chat-4", "Joke from the chat", (
            "Quick joke from the chat: why did the plumber break up with the sink? Too many drains on the "
            "relationship. Terrible. I love it.",
            "The rain has stopped, by the way, so I might go mow the lawn after this.",
        )),
        Part("hinge", "Chapter 5: the squeaky hinge", (
            "Chapter five, and the easiest one: a squeaky door hinge.",
            "Close the door, then tap the hinge pin up from below with a nail set and a hammer until you can "
            "pull it out by hand.",
            "Clean the pin with steel wool to get the old paint and the rust off.",
            "Coat it with a thin layer of white lithium grease, not a spray penetrating oil. That stuff "
            "evaporates, and the squeak comes back within a week.",
            "Slide the pin back in, swing the door a dozen times to work the grease in, and wipe off whatever "
            "squeezes out.",
            "If the door also rubs at the top corner, tighten the top hinge screws. If they just spin, replace "
            "one with a three inch screw that bites into the framing behind.",
        )),
        Part("chat-5", "Almost done", (
            "Almost done. Somebody asked how long I have been doing this. About twenty years, and I still "
            "learn something every single week.",
        )),
        Part("chair", "Bonus: the wobbly chair", (
            "Bonus chapter, since we have time. This kitchen chair wobbles, and it is the back left leg joint "
            "that is loose.",
            "Pull the joint apart gently. If it will not come, a few taps with a rubber mallet and a wood block "
            "will separate it.",
            "Scrape every bit of the old glue off both the tenon and the hole. Fresh glue does not bond to old "
            "dried glue.",
            "Use regular yellow wood glue, or hide glue if it is an antique you might need to take apart again "
            "someday.",
            "Clamp it with a strap clamp around all four legs, wipe the squeeze-out with a damp rag, and leave "
            "it clamped for at least twelve hours.",
        )),
        Part("outro", "Recap", (
            "That is it for today. To recap: we replaced a faucet cartridge, patched the drywall, re-caulked "
            "the tub, cleared the slow drain, silenced the hinge and fixed the chair.",
            "So if your faucet, your wall, your tub, your drain, your door or your chair needs attention, you "
            "now have a plan.",
            "Thanks for hanging out with me, like and subscribe, and I will see you next Saturday.",
        )),
    ), (
        q("which grease is safe on the seals of a replacement faucet valve", "faucet", 6),
        q("what do I screw the new piece of wallboard to when the hole is big", "drywall", 2),
        q("should the bathtub be empty or full when I seal around it", "caulk", 4),
        q("which direction do the rubber washers go when I reconnect the curved pipe under the sink", "drain", 6),
        q("what should I lube a door hinge pin with so it stays quiet for good", "hinge", 3),
        q("how long should a reglued chair joint sit under pressure", "chair", 4),
    ))


COOKING_CLASS = Recording(
    "thursday-cooking-class", "Thursday night cooking class: steak, risotto and mousse", "dev", "long", (
        Part("intro", "Welcome to cooking class", (
            "Good evening everyone, and welcome to Thursday night cooking class. I can see a lot of you have "
            "your aprons on already, I love it.",
            "Tonight we cover dicing an onion without tears, searing a steak, a quick pan sauce, a proper "
            "mushroom risotto, a vinaigrette, looking after a cast iron skillet, and a chocolate mousse for "
            "dessert.",
            "Onions, steak, sauce, risotto, dressing, cast iron and mousse. It is a busy night, so let us get "
            "going.",
        )),
        Part("sponsor", "Brought to you by Copperleaf", (
            "Tonight's class is brought to you by Copperleaf cookware.",
            "Their tri-ply stainless pans are what I use every day in this kitchen, and students get fifteen "
            "percent off with the code thursday class.",
        )),
        Part("onion", "Dicing an onion", (
            "Let us start with the onion, because almost every savoury dish starts with one.",
            "Cut the onion in half through the root, and leave the root end on. The root is what holds the "
            "layers together while you cut.",
            "Peel it, lay it flat side down, and make horizontal cuts toward the root, then vertical cuts, and "
            "finally slice across to get an even dice.",
            "Keep the fingertips of your guiding hand curled under, the claw grip, so the side of the blade "
            "rides against your knuckles and never near your nails.",
            "About the tears: a sharp knife crushes fewer cells, so less of the irritating gas gets released. "
            "Chilling the onion in the fridge for half an hour helps a lot too.",
        )),
        Part("chat-1", "Snow outside", (
            "Somebody at the back asked if I am a real chef. I worked in restaurants for twelve years, and now "
            "I teach, which pays worse, but I sleep at night.",
            "It is snowing outside, so thank you all for making it in tonight. Drive carefully on the way home.",
            "Someone asked me last week why restaurant food tastes better. Mostly butter and salt, and somebody "
            "else doing the dishes.",
        )),
        Part("steak", "Searing a steak", (
            "Now the steak. I have two strip steaks here, about three centimetres thick.",
            "Take them out of the fridge forty minutes before cooking, and pat them very dry with paper towels. "
            "A wet surface steams instead of browning.",
            "Season generously with kosher salt, about a teaspoon per side, either right before they go in or "
            "at least forty minutes ahead. Anything in between pulls moisture out and leaves it sitting on the "
            "surface.",
            "Heat the pan until a drop of water dances and evaporates, add a high smoke point oil like canola, "
            "and lay the steak down away from you.",
            "Leave it alone for three minutes, flip it, then add butter, garlic and thyme, and spoon the foaming "
            "butter over the top.",
            "Pull it at fifty two degrees on an instant read thermometer for medium rare, and let it rest for "
            "eight minutes on a rack.",
            "When you slice it, look for the lines of the muscle fibres and cut across them, not along them. "
            "Same steak, but it chews twice as tender.",
        )),
        Part("sauce", "A five minute pan sauce", (
            "While the steak rests, the pan sauce, which takes five minutes and uses what is left in the pan.",
            "Pour off most of the fat, add a chopped shallot, and cook it for one minute.",
            "Deglaze with half a cup of red wine, and scrape up the brown bits on the bottom with a wooden spoon. "
            "Those bits are called fond, and they are pure flavour.",
            "Reduce by half, add a cup of beef stock, and reduce again until it coats the back of a spoon.",
            "Off the heat, whisk in two tablespoons of cold butter, one piece at a time. If the pan is too hot, "
            "the sauce breaks and turns greasy.",
        )),
        Part("chat-2", "A question from Linda", (
            "A question from Linda: can you use white wine? Good question, but let us keep going, I will answer "
            "everything at the end.",
            "And somebody's phone is ringing. It is okay, we have all been there.",
            "While we wait, a little story. The first night I worked the grill in a real restaurant, I dropped a "
            "whole tray of steaks on the floor in front of the owner. He just said, well, now you know what not "
            "to do. I still think about that every time I pick up a tray.",
        )),
        Part("risotto", "Mushroom risotto", (
            "Risotto next. People think it is hard. It is not hard, it is just patient.",
            "Use a short grain rice like arborio or carnaroli, and never rinse it. You want that surface starch, "
            "it is what makes risotto creamy.",
            "Keep the stock at a gentle simmer in a separate pot. Cold stock shocks the rice and slows everything "
            "down.",
            "Toast the rice in oil and butter for two minutes, until the edges go translucent, then add a splash "
            "of white wine.",
            "Add the stock one ladle at a time, stirring often, and wait until it is almost absorbed before the "
            "next ladle. All in all it takes about eighteen minutes.",
            "Finish off the heat with cold butter and parmesan, and beat it hard for thirty seconds. The Italians "
            "call that the mantecatura.",
            "The mushrooms I brown separately in a very hot pan, and fold them in at the end so they stay meaty.",
            "Serve it right away on warm plates. Risotto should flow slowly when you tilt the plate, the "
            "Italians say all onda, like a wave. If it sits in a stiff mound, stir in a splash more hot stock.",
        )),
        Part("vinaigrette", "A vinaigrette for the salad", (
            "We need something green on the plate, so here is a simple vinaigrette for a side salad.",
            "The classic ratio is three parts oil to one part vinegar. Taste it and go up to four to one if you "
            "like it milder.",
            "Whisk a teaspoon of Dijon mustard into the vinegar first, with a pinch of salt, because salt will "
            "not dissolve in oil. The mustard is the emulsifier that holds the two together.",
            "Then drizzle the olive oil in slowly while you whisk, or shake everything in a jam jar with the lid "
            "on, which is what I actually do at home.",
            "Dress the leaves right before serving, and toss them with your hands. Dressed lettuce wilts within "
            "ten minutes.",
        )),
        Part("chat-3", "Stretch break", (
            "Okay, quick stretch. Someone asked what my favourite meal is. Honestly, a good grilled cheese at "
            "midnight. Do not tell my old head chef.",
            "And yes, Marco, the apron is from the restaurant where I did my apprenticeship. It has survived "
            "more burns than I have.",
            "By the way, next month we are doing fresh pasta by hand, so bring a rolling pin and a lot of "
            "patience. Sign up sheet is by the door.",
        )),
        Part("castiron", "Caring for cast iron", (
            "While the risotto rests, let me show you how I look after this cast iron skillet, which belonged "
            "to my grandmother.",
            "Clean it while it is still warm. Hot water and a stiff brush or a chain mail scrubber get almost "
            "everything off.",
            "For stuck-on bits, scrub with coarse salt and a little oil instead of soap. The salt works like "
            "sandpaper and does not strip the seasoning.",
            "Never soak it and never put it in the dishwasher. It will rust overnight.",
            "Dry it on the stove over low heat for a couple of minutes, then wipe a very thin layer of oil all "
            "over it with a paper towel.",
            "If it does rust, scrub the rust off with steel wool, then re-season it upside down in the oven at "
            "two hundred and fifty degrees for an hour.",
        )),
        Part("chat-4", "Linda's answer", (
            "I see Linda is still waiting for her answer. Yes, white wine works in the pan sauce, it is just "
            "lighter. Sorry Linda.",
            "And a few of you asked where I buy my knives. Honestly, a restaurant supply store. They are not "
            "pretty, but they are cheap, they sharpen easily, and nobody cries when one falls on the floor.",
        )),
        Part("mousse", "Chocolate mousse", (
            "And dessert, a chocolate mousse.",
            "Melt two hundred grams of dark chocolate, seventy percent, over a pot of barely simmering water, and "
            "let it cool to about body temperature.",
            "Whip three egg whites with a pinch of salt until they hold soft peaks, then add thirty grams of "
            "sugar and whip them to firm peaks.",
            "Stir the three yolks into the chocolate, then fold the whites in, in three additions, with a "
            "spatula, cutting down the middle and turning the bowl.",
            "If the chocolate is too hot when the whites go in, it seizes and the mousse turns grainy, so check "
            "that it is barely warm to the touch.",
            "Chill it for at least four hours. Overnight is even better.",
            "A little flaky salt and a few raspberries on top when you serve it, and nobody will ever guess it "
            "only has four ingredients.",
        )),
        Part("outro", "See you next Thursday", (
            "And that is our class. We diced onions, seared steaks, made a pan sauce, a risotto and a "
            "vinaigrette, looked after the cast iron and made a chocolate mousse.",
            "Onions, steak, sauce, risotto, dressing, skillet and mousse. You can do all of this at home this "
            "weekend.",
            "Thank you for coming, do not forget to subscribe to the channel, and see you next Thursday.",
        )),
    ), (
        q("why keep the hairy end attached when chopping an onion", "onion", 1),
        q("how long do steaks need to warm up on the counter before they hit the pan", "steak", 1),
        q("my butter sauce separated and went oily, what went wrong", "sauce", 4),
        q("do I need to wash arborio rice before making risotto", "risotto", 1),
        q("what do I use instead of dish soap on my skillet", "castiron", 2),
        q("how warm can the melted chocolate be when I fold in the whipped whites", "mousse", 1, 4),
    ))


BIKE_NIGHT = Recording(
    "bike-fix-it-night", "Fix-it night at the community bike shop", "dev", "long", (
        Part("intro", "Fix-it night", (
            "Hi folks, welcome to fix-it night at the community bike shop. The coffee is free, the tools are "
            "shared, and nobody judges a rusty chain.",
            "Tonight we go through six things: cleaning and oiling a chain, setting tire pressure, tuning the "
            "gears on the rear derailleur, patching a flat tube, checking the headset for play, and topping up "
            "tubeless sealant.",
            "Chain, tires, gears, flats, headset and sealant. If your bike clicks, squeaks, wobbles or goes "
            "flat, you are in the right place.",
        )),
        Part("sponsor", "Sponsored by Spokewise", (
            "Tonight's session is sponsored by Spokewise, the bike insurance people.",
            "They cover theft and crash damage from four dollars a month, and members of this shop get the "
            "first month free with the code fix it night.",
        )),
        Part("chain", "Chain care", (
            "Let us start with the chain, because a dirty chain wears out your whole drivetrain.",
            "Check the wear first with a chain checker tool. If it drops in at point five percent on an eleven "
            "or twelve speed bike, or point seven five on older bikes, replace the chain before it eats the "
            "cassette.",
            "To clean it, backpedal it through a rag soaked in degreaser, or use a clip-on chain scrubber with "
            "the little brushes inside.",
            "Rinse the degreaser off with water and let the chain dry fully. Lube put on top of degreaser just "
            "washes away.",
            "Put one small drop of lube on each roller, on the inside of the chain, while you turn the cranks "
            "backwards slowly.",
            "Wait five minutes, then wipe the outside of the chain hard with a clean rag. The lube needs to be "
            "inside the rollers, not on the outside, where it only collects grit.",
            "Use dry lube for dusty summer roads, and wet lube if you ride in the rain a lot.",
            "If you do need a new chain, most modern ones join with a master link. Snap it closed by putting the "
            "link at the top, holding the back brake and stepping hard on the pedal.",
        )),
        Part("chat-1", "Hi Sam", (
            "Oh, hi Sam, come on in. Sam is the one who rebuilt that orange nineteen seventies frame hanging on "
            "the wall over there.",
            "And no, the shop cat is not for sale. She runs this place, we just work here.",
            "Her name is Derailleur, Della for short. She once slept through an entire wheel truing class on top "
            "of the parts bin.",
        )),
        Part("tires", "Tire pressure", (
            "Okay, tire pressure, which is the cheapest upgrade you will ever make.",
            "Do not just pump to the maximum number on the sidewall. That number is a limit, not a "
            "recommendation.",
            "For a road bike with twenty eight millimetre tires and a rider of around seventy five kilos, start "
            "at about five and a half bar, that is about eighty psi, and go down from there if it feels harsh.",
            "Wider gravel and mountain bike tires run much lower, often one and a half to two bar, especially "
            "when they are tubeless.",
            "Check it before every ride. Tubes lose air through the rubber itself, and a soft tire is how you "
            "get pinch flats, those two little snake bite holes side by side.",
            "Use a floor pump with a gauge. The little hand pumps are for emergencies, and their gauges are "
            "mostly decorative.",
            "And put the tire on so the logo sits right over the valve. It looks professional, and it makes "
            "finding the next puncture much easier, which we will get to in a minute.",
        )),
        Part("chat-2", "Sunday ride", (
            "Quick break. Someone asked if we are doing a group ride this Sunday. Yes, nine in the morning from "
            "the shop, coffee stop halfway, and nobody gets dropped.",
            "The weather looks dry for once, so bring sunglasses and a spare tube.",
            "Last time it rained so hard we spent an hour in a bus shelter telling bad jokes. Honestly, one of "
            "the best rides we have had.",
            "And if you have never done a group ride before, do not worry about speed. We ride at the pace of "
            "the slowest person, we stop for every puncture, and there is always cake at the end.",
        )),
        Part("gears", "Tuning the gears", (
            "Now the gears. If your chain clicks or hesitates when you shift, the rear derailleur cable tension "
            "is probably off.",
            "Shift to the smallest cog at the back first, then turn the pedals and shift up one gear at a time.",
            "If the chain is slow to climb onto a bigger cog, turn the barrel adjuster, where the cable enters "
            "the derailleur, counterclockwise, a quarter turn at a time.",
            "If it is slow to drop back to the smaller cogs, turn it clockwise instead. Small changes, quarter "
            "turns, and test after each one.",
            "The limit screws, marked H and L, only stop the chain from falling off the ends of the cassette. Do "
            "not touch them to fix shifting, that is what the barrel adjuster is for.",
            "And if nothing helps, look at the derailleur hanger. If it is bent even slightly, no amount of "
            "adjusting will fix the shifting.",
            "A hanger alignment tool will tell you for sure. We have one on the wall, it is the long bar with the "
            "blue handle. Hangers are cheap and meant to bend, so the frame does not.",
        )),
        Part("flat", "Patching a flat", (
            "Since half of you came in tonight with a flat, let us do a puncture repair too.",
            "Take the tube out and pump it up. Listen for the hiss, hold it close to your cheek, or dunk it in a "
            "bucket of water and watch for bubbles.",
            "Before anything goes back in, find what caused it. Run your fingers carefully around the inside of "
            "the tire, and line the tire label up with the valve, so you know where on the tire to look.",
            "Roughen the area around the hole with the little sandpaper from the kit, spread a thin layer of "
            "vulcanising solution, and wait until it goes dull, about three minutes.",
            "Press the patch on hard for a full minute, starting from the middle. You can leave the clear "
            "backing film on, it does no harm.",
            "Put a little air in the tube before you fit it, so it holds its shape and does not get twisted or "
            "pinched under the tire bead.",
        )),
        Part("chat-3", "Tea", (
            "Hang on, the kettle is whistling. Anyone else want tea? Okay, three teas.",
            "While the tea brews, a reminder that the shop is run entirely by volunteers. If you have learned "
            "something tonight, come back one evening and teach it to the next person. That is the whole idea.",
            "Someone in the back asked what bike I ride. A steel touring bike, twenty two years old, with more "
            "repairs than original parts at this point.",
        )),
        Part("headset", "The headset", (
            "Next, the headset, the bearings that let your handlebars turn.",
            "To check it, squeeze the front brake hard and rock the bike forward and back. If you feel a clunk "
            "or a knock at the front, the headset is loose.",
            "Loosen the two stem bolts on the side of the steerer tube first. Then tighten the top cap bolt just "
            "a little, a quarter turn, until the play disappears.",
            "Do not overdo the top cap. If the bars stop turning smoothly, you have gone too far and you will "
            "crush the bearings.",
            "Then line the stem up with the front wheel and tighten the stem bolts alternately to five newton "
            "metres with a torque wrench.",
            "If the play comes back after a week, or the steering feels notchy in the straight ahead position, "
            "the bearings themselves are worn. They are cartridge bearings on most bikes, and we have spares.",
        )),
        Part("chat-4", "Cookies", (
            "Somebody asked about the rumbling outside. That is the bakery next door unloading flour. Every "
            "Tuesday, same time, you could set your watch by it.",
            "And thank you to whoever brought the cookies. They lasted about four minutes.",
            "Oh, and Priya asked if we still need volunteers for the kids' bike day next month. Yes, always. "
            "Put your name on the whiteboard by the door.",
        )),
        Part("sealant", "Tubeless sealant", (
            "Last one, tubeless sealant.",
            "Sealant dries out inside the tire, so top it up every two to three months, and more often when it "
            "is hot.",
            "Turn the wheel so the valve is at the top, let the air out, and unscrew the valve core with a core "
            "tool.",
            "Inject about thirty millilitres for a road tire and sixty for a mountain bike tire, through the "
            "valve, with a syringe.",
            "Screw the core back in, inflate, and spin and shake the wheel so the sealant coats the whole inside "
            "of the tire.",
            "If you hear it sloshing around, there is still liquid in there. If it is silent and the tire keeps "
            "going soft, it has dried into a rubbery ball, and it is time to clean it out and start fresh.",
        )),
        Part("outro", "See you at the shop", (
            "That is fix-it night. We cleaned a chain, set tire pressures, tuned the gears, patched a tube, "
            "adjusted a headset and topped up the sealant.",
            "Chain, tires, gears, flats, headset and sealant. Your bike will thank you.",
            "Thanks for watching the stream, subscribe for the next one, and see you at the shop.",
        )),
    ), (
        q("how do I know my bike chain is stretched enough to need a new one", "chain", 1),
        q("why wipe the oil off again right after lubricating the chain", "chain", 5),
        q("is the number printed on the side of the tyre how much air I should put in", "tires", 1),
        q("which way do I turn the little cable knob when the chain won't move up to a larger sprocket",
          "gears", 2),
        q("how can I tell if the bearings in the front of the bike where the handlebars turn are loose",
          "headset", 1),
        q("how much sealant goes into a mountain bike tubeless tyre", "sealant", 3),
    ))


LONG_DEV = (HOME_REPAIR, COOKING_CLASS, BIKE_NIGHT)
